import { claimRun } from "../../cluster/jobs.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { ServerKind } from "~/shared/deployments.js";
import { addUsage, slidePopularity, type UsageCount } from "./repo.js";

const SLIDE_JOB = "usage-popularity";
const SLIDE_EVERY_MS = 3_600_000;

/**
 * 'Total Usage (requests)' and who used what: counted in memory on the hot path and written in
 * batches (one transaction a tick), never one UPDATE per request. A failed write keeps its counts
 * for the next tick; close() writes what is left. Once an hour one process slides the popularity
 * window (distinct users over 30 days).
 */
export class UsageCounter {
  private counts = new Map<string, UsageCount>();
  private timer: NodeJS.Timeout | undefined;
  private slideTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly flushMs: number,
    /** an entry's popularity changed (someone new used it, or someone fell out of the window): the directory reads it again */
    private readonly popularityChanged: () => void = () => {},
  ) {}

  /** Starts the flush and the popularity window's slide (the platform's listen()). */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs).unref();
    this.slideTimer ??= setInterval(() => void this.slide(), SLIDE_EVERY_MS).unref();
  }

  /** One more request to a server's deployment owned by `userId`. */
  add(kind: ServerKind, ref: string, userId: string, n = 1): void {
    const key = `${kind}\u0000${ref}\u0000${userId}`;
    const e = this.counts.get(key);
    if (e) e.n += n;
    else this.counts.set(key, { kind, ref, userId, n });
  }

  private async slide(): Promise<void> {
    try {
      if ((await claimRun(this.db, SLIDE_JOB, SLIDE_EVERY_MS)) && (await slidePopularity(this.db))) this.popularityChanged();
    } catch (e) {
      this.log.error({ err: e }, "could not slide the popularity window");
    }
  }

  /** Writes the counts so far; batches never overlap, so no count is written twice. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.counts.size === 0) return;
      const batch = this.counts;
      this.counts = new Map();
      try {
        if (await addUsage(this.db, batch)) this.popularityChanged();
      } catch (e) {
        for (const { kind, ref, userId, n } of batch.values()) this.add(kind, ref, userId ?? "", n);
        this.log.error({ err: e }, "could not record usage counts; keeping them for the next try");
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.slideTimer);
    await this.flush();
  }
}
