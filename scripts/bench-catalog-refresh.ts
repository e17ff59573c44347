// bench:catalog's last lane: how long after a catalogue write every search shows it. The write
// goes through the catalogue's own code and bus (as the CLI's import does: a PgBus that publishes),
// and the app's processes each refresh their search index; searches on new connections (spread
// over the workers) are asked until ten in a row show the change.
import http from "node:http";
import type { Database } from "../src/server/db/client.js";
import { PgBus } from "../src/server/cluster/pg-bus.js";
import { connectCatalogCache } from "../src/server/features/catalog/cache.js";
import { insertServers } from "../src/server/features/catalog/repo.js";

/** The ids a search answers, asked on a new connection (so that each may reach another worker). */
function searchIds(base: string, q: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}/api/mcp-servers?q=${encodeURIComponent(q)}`, { agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve((JSON.parse(body) as { data: { id: string }[] }).data.map((s) => s.id)));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

/**
 * Milliseconds from each of `writes` new entries' commit until every search shows it: to the end of
 * the first of ten searches in a row that all did (a search asked meanwhile waits for its process's refresh).
 */
export async function measureAgreement(base: string, database: Database, writes = 5): Promise<number[]> {
  const bus = new PgBus(database.pool);
  const disconnect = connectCatalogCache(database.db, bus);
  const took: number[] = [];
  try {
    for (let i = 0; i < writes; i++) {
      const word = `wombat${"abcdefghij"[i]}${process.pid}`;
      const id = `bench-fresh-${word}`;
      await insertServers(database.db, [
        {
          id,
          name: `${word} fresh`,
          description: "Added while the bench runs.",
          category: "Featured",
          type: "Community",
          source: "imported",
          isApproved: true,
        },
      ]);
      const committed = performance.now();
      let streakFrom = 0;
      for (let hits = 0; hits < 10;) {
        const shown = (await searchIds(base, word)).includes(id);
        hits = shown ? hits + 1 : 0;
        if (hits === 1) streakFrom = performance.now();
        if (performance.now() - committed > 60_000) throw new Error(`${id} not shown after a minute`);
      }
      took.push(streakFrom - committed);
    }
  } finally {
    disconnect();
    await bus.close();
  }
  return took;
}
