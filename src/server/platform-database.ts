import path from "node:path";
import type { Config } from "./config.js";
import { connect, runMigrations, type Database } from "./db/client.js";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./db/embedded.js";
import { assignRegistryNames } from "./features/catalog/registry-repo.js";
import { seedCatalogIfEmpty } from "./features/catalog/service.js";
import { namespaceFor } from "./features/registry-api/format.js";
import type { Logger } from "./log.js";
import { projectRoot } from "./paths.js";

// The platform's database (platform.ts): DATABASE_URL or the embedded PostgreSQL, migrated once
// however many processes start at the same moment, and seeded with the demo catalogue when empty.

/** Opens DATABASE_URL (or starts the embedded PostgreSQL), migrates it and fills an empty directory with the demo catalogue. */
export async function openDatabase(config: Config, log: Logger): Promise<{ database: Database; embedded?: EmbeddedPostgres }> {
  let url = config.DATABASE_URL;
  let embedded: EmbeddedPostgres | undefined;
  if (!url) {
    const t = performance.now();
    embedded = await startEmbeddedPostgres({
      dataDir: path.resolve(projectRoot, config.DATA_DIR),
      port: config.EMBEDDED_PG_PORT,
      log: (m) => log.info(m),
    });
    url = embedded.url;
    log.info({ port: embedded.port, ms: Math.round(performance.now() - t) }, "embedded PostgreSQL ready");
  }
  const database = connect(url);
  // Several processes may start at once on one database (a cluster, worker processes): one at a
  // time migrates and seeds; the others then find nothing left to do.
  const lock = await database.pool.connect().catch(async (e: unknown) => {
    await database.close();
    await embedded?.stop();
    throw e;
  });
  try {
    await lock.query("select pg_advisory_lock(hashtextextended('switchboard:migrate', 0))");
    await runMigrations(database.db);
    const namespace = namespaceFor(config.PUBLIC_URL);
    const seeded = await seedCatalogIfEmpty(database.db, namespace);
    if (seeded) log.info({ servers: seeded }, "demo catalogue added to the empty directory");
    await assignRegistryNames(database.db, namespace);
  } catch (e) {
    lock.release(true);
    await database.close();
    await embedded?.stop();
    throw e;
  }
  await lock.query("select pg_advisory_unlock(hashtextextended('switchboard:migrate', 0))").catch(() => {});
  lock.release();
  return { database, embedded };
}
