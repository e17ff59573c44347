import { Gauge, type Registry } from "prom-client";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { syncState } from "./sync-repo.js";

// The registry sync in metrics (docs/observability.md): read from its row at scrape, so every
// process shows the same figures (aggregated as the highest, not a sum).

export function registrySyncGauges(registry: Registry, d: { db: Db; log: Logger; upstream: string }): void {
  const registers = [registry];
  const read = async () => {
    try {
      return await syncState(d.db, d.upstream);
    } catch (e) {
      d.log.warn({ err: e }, "metrics: could not read the registry sync");
      return undefined;
    }
  };
  const seconds = (t: Date | null | undefined) => (t ? t.getTime() / 1000 : 0);
  new Gauge({
    name: "switchboard_registry_sync_last_success_timestamp_seconds",
    help: "When the registry sync last completed a run (0: never)",
    registers,
    aggregator: "max",
    async collect() {
      this.set(seconds((await read())?.lastOkAt));
    },
  });
  new Gauge({
    name: "switchboard_registry_sync_failing",
    help: "1 when the registry sync's last run stopped on an error (its reason is on the admin page), else 0",
    registers,
    aggregator: "max",
    async collect() {
      this.set((await read())?.status === "failed" ? 1 : 0);
    },
  });
  new Gauge({
    name: "switchboard_registry_sync_entries",
    help: "What the registry sync's last (or current) run did with the entries it received, by action (created, updated, withdrawn, kept-local, skipped, ...)",
    labelNames: ["action"],
    registers,
    aggregator: "max",
    async collect() {
      const row = await read();
      this.reset();
      for (const [action, n] of Object.entries(row?.counts ?? {})) this.set({ action }, n);
    },
  });
}
