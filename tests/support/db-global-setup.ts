// One PostgreSQL for the whole run (TEST_DATABASE_URL, else an embedded one), one migrated
// template database; every test file clones the template (tests/support/db.ts).
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { connect, runMigrations } from "~/server/db/client.js";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "~/server/db/embedded.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    pgPrefix: string;
  }
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const uid = process.getuid?.() ?? 0;
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(os.tmpdir(), `switchboard-test-pg-${uid}`),
      port: 54339,
      database: "postgres",
    });
    adminUrl = embedded.url;
  }
  const template = `sb_tpl_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${template}"`);
  const tpl = connect(withDatabase(adminUrl, template), { max: 1 });
  await runMigrations(tpl.db);
  await tpl.close();

  project.provide("pgAdminUrl", adminUrl);
  project.provide("pgTemplate", template);
  project.provide("pgPrefix", `sb_t_${process.pid}_`);

  return async () => {
    // Drop what this run created, including per-file databases a crashed test left behind.
    const left = await admin.query<{ datname: string }>("select datname from pg_database where datname = $1 or datname like $2", [
      template,
      `sb_t_${process.pid}_%`,
    ]);
    for (const { datname } of left.rows) await admin.query(`drop database if exists "${datname}" with (force)`);
    await admin.end();
    await embedded?.stop();
  };
}
