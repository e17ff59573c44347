// A migrated scratch database for a benchmark: on BENCH_DATABASE_URL / TEST_DATABASE_URL when
// set, otherwise on an embedded PostgreSQL; dropped afterwards unless BENCH_KEEP_DB is set.
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { connect, runMigrations, type Database } from "../src/server/db/client.js";
import { startEmbeddedPostgres } from "../src/server/db/embedded.js";
import { createApiKey } from "../src/server/features/api-keys/api-keys.js";

export async function withBenchDatabase<T>(
  name: string,
  opts: { max?: number },
  fn: (database: Database, url: string) => Promise<T>,
): Promise<T> {
  let adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const embedded = adminUrl
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: path.join(os.tmpdir(), `switchboard-bench-pg-${process.getuid?.() ?? 0}`),
        port: 54349,
        database: "postgres",
      });
  adminUrl ??= embedded!.url;
  const dbName = `${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${dbName}"`);
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  const database = connect(u.toString(), opts);
  try {
    await runMigrations(database.db);
    return await fn(database, u.toString());
  } finally {
    await database.close();
    if (process.env.BENCH_KEEP_DB) console.log(`kept ${u.toString()}`);
    else await admin.query(`drop database if exists "${dbName}" with (force)`);
    await admin.end();
    await embedded?.stop();
  }
}

/** A fresh user with an API key, straight in the database (each Free user has its own limits). */
export async function benchUserKey(database: Database): Promise<string> {
  const id = randomUUID();
  const email = `${id}@bench.example`;
  const username = `u${id.slice(0, 8)}`;
  await database.pool.query(`insert into "user" (id, name, email, email_verified) values ($1, $1, $2, true)`, [id, email]);
  await database.pool.query(`insert into profiles (id, email, username, full_name) values ($1, $2, $3, $3)`, [id, email, username]);
  return (
    await createApiKey(
      // A key for every server (resources: null) looks none up.
      {
        db: database.db,
        servers: { catalogServer: async () => undefined, ownedServer: async () => undefined, userHas: async () => false },
      },
      { id, email, emailVerified: true, username, fullName: "bench", isAdmin: false },
      { name: "bench", scopes: ["mcp", "deploy", "servers"], resources: null, expiresAt: null },
    )
  ).apiKey;
}

/** Polls the deployment's row until it runs; its status detail when it fails. */
export async function waitUntilRunning(database: Database, id: string): Promise<void> {
  for (;;) {
    const { rows } = await database.pool.query<{ status: string; status_detail: string | null }>(
      "select status, status_detail from deployments where id = $1",
      [id],
    );
    if (rows[0]?.status === "running") return;
    if (rows[0]?.status === "failed") throw new Error(`deployment failed: ${rows[0].status_detail}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** A benchmark's entry point: exit 0 when it finished, 1 with the error otherwise. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
