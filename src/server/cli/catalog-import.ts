// npm run catalog:import -- <file-or-url> [more files]
import { readFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config.js";
import { connect, runMigrations } from "../db/client.js";
import { startEmbeddedPostgres } from "../db/embedded.js";
import { importEntries, entriesOf } from "../features/registry-api/importer.js";
import { safeFetch } from "../net/safe-fetch.js";
import { projectRoot } from "../paths.js";

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
  const config = loadConfig();
  const embedded = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({ dataDir: path.resolve(projectRoot, config.DATA_DIR), port: config.EMBEDDED_PG_PORT });
  const database = connect(config.DATABASE_URL ?? embedded!.url, { max: 2 });
  let failed = false;
  try {
    await runMigrations(database.db);
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
      console.log(`${source}: ${r.created.length} created, ${r.updated.length} updated, ${r.unchanged.length} unchanged, ${r.invalid.length} invalid`);
      for (const i of r.invalid) console.log(`  skipped ${i.name}: ${i.reason}`);
    }
  } finally {
    await database.close();
    if (embedded && !embedded.adopted) await embedded.stop();
  }
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
