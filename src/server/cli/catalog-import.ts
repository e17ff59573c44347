// npm run catalog:import -- <file-or-url> [more files]
import { readFile } from "node:fs/promises";
import { PgBus } from "../cluster/pg-bus.js";
import { connectCatalogCache } from "../features/catalog/cache.js";
import { importEntries, entriesOf } from "../features/registry-api/importer.js";
import { safeFetch } from "../net/safe-fetch.js";
import { withCliDatabase } from "./database.js";

async function load(source: string): Promise<unknown> {
  if (/^[a-z]+:\/\//i.test(source)) {
    const res = await safeFetch(source, { maxBytes: 50 * 1024 * 1024 });
    return JSON.parse(res);
  }
  return JSON.parse(await readFile(source, "utf8"));
}

async function main(args: string[]): Promise<number> {
  if (args.length === 0) {
    console.error("Usage: npm run catalog:import -- <server.json file or https URL> [...]");
    return 2;
  }
  let failed = false;
  await withCliDatabase(async (database) => {
    // The running app's processes clear their catalogue caches as soon as the import has written.
    const bus = new PgBus(database.pool);
    connectCatalogCache(database.db, bus);
    try {
      for (const source of args) {
        let doc: unknown;
        try {
          doc = await load(source);
        } catch (e) {
          console.error(`${source}: cannot read it (${(e as Error).message})`);
          failed = true;
          continue;
        }
        const r = await importEntries(database.db, entriesOf(doc));
        console.log(
          `${source}: ${r.created.length} created, ${r.updated.length} updated, ${r.unchanged.length} unchanged, ${r.invalid.length} invalid`,
        );
        for (const i of r.invalid) console.log(`  skipped ${i.name}: ${i.reason}`);
      }
    } finally {
      await bus.close();
    }
  });
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
