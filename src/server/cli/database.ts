import path from "node:path";
import { loadConfig } from "../config.js";
import { connect, runMigrations, type Database } from "../db/client.js";
import { startEmbeddedPostgres } from "../db/embedded.js";
import { projectRoot } from "../paths.js";

/**
 * Runs a command against the app's own database: DATABASE_URL, or the embedded PostgreSQL
 * (reused when the app is running, started and stopped again when it is not).
 */
export async function withCliDatabase<T>(run: (database: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const embedded = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({ dataDir: path.resolve(projectRoot, config.DATA_DIR), port: config.EMBEDDED_PG_PORT });
  const database = connect(config.DATABASE_URL ?? embedded!.url, { max: 2 });
  try {
    await runMigrations(database.db);
    return await run(database);
  } finally {
    await database.close();
    if (embedded && !embedded.adopted) await embedded.stop();
  }
}
