// A migrated scratch database for a benchmark: on BENCH_DATABASE_URL / TEST_DATABASE_URL when
// set, otherwise on an embedded PostgreSQL; dropped afterwards unless BENCH_KEEP_DB is set.
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { connect, runMigrations, type Database } from "../src/server/db/client.js";
import { startEmbeddedPostgres } from "../src/server/db/embedded.js";

export async function withBenchDatabase<T>(name: string, opts: { max?: number }, fn: (database: Database, url: string) => Promise<T>): Promise<T> {
  let adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const embedded = adminUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: path.join(os.tmpdir(), `switchboard-bench-pg-${process.getuid?.() ?? 0}`), port: 54349, database: "postgres" });
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
