import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import path from "node:path";
import { projectRoot } from "../paths.js";
import * as schema from "./schema.js";

export type Db = NodePgDatabase<typeof schema>;

export interface Database {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function connect(url: string, opts: { max?: number } = {}): Database {
  // Directory search treats words this similar as typos of each other (pg_trgm's % operator);
  // set per connection at start-up so every query sees it.
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, options: "-c pg_trgm.similarity_threshold=0.4" });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}

export const migrationsFolder = path.join(projectRoot, "src/server/db/migrations");

export async function runMigrations(db: Db): Promise<void> {
  await migrate(db, { migrationsFolder });
}
