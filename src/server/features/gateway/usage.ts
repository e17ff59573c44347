import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { ServerKind } from "../../../shared/deployments.js";
import { addUsage } from "./repo.js";

/**
 * 'Total Usage (requests)': counted in memory on the hot path and written in batches (one
 * transaction a tick), never one UPDATE per request. A failed write keeps its counts for the
 * next tick; close() writes what is left.
 */
export class UsageCounter {
  private counts = new Map<string, { kind: ServerKind; ref: string; n: number }>();
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    flushMs: number,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs).unref();
  }

  add(kind: ServerKind, ref: string, n = 1): void {
    const key = `${kind}\u0000${ref}`;
    const e = this.counts.get(key);
    if (e) e.n += n;
    else this.counts.set(key, { kind, ref, n });
  }

  /** Writes the counts so far; batches never overlap, so no count is written twice. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.counts.size === 0) return;
      const batch = this.counts;
      this.counts = new Map();
      try {
        await addUsage(this.db, batch);
      } catch (e) {
        for (const { kind, ref, n } of batch.values()) this.add(kind, ref, n);
        this.log.error({ err: e }, "could not record usage counts; keeping them for the next try");
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
