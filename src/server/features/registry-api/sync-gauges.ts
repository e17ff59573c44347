import { Gauge, type Registry } from "prom-client";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { syncState } from "./sync-repo.js";

// The registry sync in metrics (docs/observability.md): read from its row at scrape, so every
// process shows the same figures (aggregated as the highest, not a sum).

export function registrySyncGauges(registry: Registry, d: { db: Db; log: Logger; upstream: string }): void {
  const registers = [registry];
  // One read of the row per scrape, whatever the number of gauges.
  let last: { at: number; state: ReturnType<typeof syncState> } | undefined;
  const read = async () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), state: syncState(d.db, d.upstream) };
    try {
      return await last.state;
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
    name: "switchboard_registry_sync_running",
    help: "1 while a registry sync run is under way (in any process), else 0",
    registers,
    aggregator: "max",
    async collect() {
      this.set((await read())?.status === "running" ? 1 : 0);
    },
  });
  new Gauge({
    name: "switchboard_registry_sync_pages",
    help: "Pages the registry sync's last (or current) run has read: its progress",
    registers,
    aggregator: "max",
    async collect() {
      this.set((await read())?.progress.pages ?? 0);
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
