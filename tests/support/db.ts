import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { connect, type Database } from "~/server/db/client.js";

export interface TestDatabase {
  url: string;
  database: Database;
  drop(): Promise<void>;
}

/** A fresh, migrated database cloned from the run's template. */
export function createTestDatabase(): Promise<TestDatabase> {
  return createDatabaseFrom(inject("pgAdminUrl"), inject("pgTemplate"), inject("pgPrefix"));
}

export async function createDatabaseFrom(adminUrl: string, template: string, prefix: string): Promise<TestDatabase> {
  const name = `${prefix}${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}" template "${template}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const database = connect(url, { max: 5 });
  return {
    url,
    database,
    async drop() {
      await database.close();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      try {
        await a.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
