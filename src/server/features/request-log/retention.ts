import { claimRun } from "../../cluster/jobs.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { deleteOldToolStats, deleteOlderThan, deleteOthersOlderThan, trimBeyond } from "./repo.js";

export const RETENTION_JOB = "request-log-retention";
/** tool figures are shown over 24 h; a day more lets every hour of that window be complete */
export const TOOL_STATS_KEEP_HOURS = 48;

export interface RetentionOptions {
  db: Db;
  log: Logger;
  /** REQUEST_LOG_RETENTION_DAYS (0: the log is off and every row goes) */
  retentionDays: number;
  /** REQUEST_LOG_RETENTION_DAYS_PRO: Pro owners' rows are kept this long (never less than retentionDays) */
  proRetentionDays?: number;
  /** the owners on Pro now (billing/plan.ts proUserIds) */
  proUsers?: () => Promise<string[]>;
  /** REQUEST_LOG_MAX_ROWS per deployment */
  maxRows: number;
  everyMs?: number;
}

/**
 * Bounds the request log and the tool figures. Every process ticks; once per interval only the
 * one that claims the run sweeps (cluster/jobs.ts), as the billing sweep does.
 */
export class RequestLogRetention {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private readonly everyMs: number;

  constructor(private readonly o: RetentionOptions) {
    this.everyMs = o.everyMs ?? 60_000;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.everyMs).unref();
  }

  private async tick(): Promise<void> {
    try {
      if (!(await claimRun(this.o.db, RETENTION_JOB, this.everyMs))) return;
    } catch (e) {
      this.o.log.error({ err: e }, "request log retention: could not claim this interval's run");
      return;
    }
    await this.sweep();
  }

  /** One sweep, now: what it deleted. */
  async sweep(): Promise<{ old: number; beyondMax: number; toolStats: number }> {
    if (this.sweeping) return { old: 0, beyondMax: 0, toolStats: 0 };
    this.sweeping = true;
    try {
      const old = await this.deleteOld();
      // Only deployments that logged since about the last run can have grown past the maximum;
      // a run missed now and then is made up by the wide window.
      const beyondMax = await trimBeyond(this.o.db, this.o.maxRows, Math.max(10, Math.ceil((this.everyMs * 5) / 60_000)));
      const toolStats = await deleteOldToolStats(this.o.db, TOOL_STATS_KEEP_HOURS);
      return { old, beyondMax, toolStats };
    } catch (e) {
      this.o.log.error({ err: e }, "request log retention sweep failed");
      return { old: 0, beyondMax: 0, toolStats: 0 };
    } finally {
      this.sweeping = false;
    }
  }

  /** Rows past their owner's plan's retention: Pro's for everyone, then the shorter one for everyone else. */
  private async deleteOld(): Promise<number> {
    const free = this.o.retentionDays;
    const pro = Math.max(free, this.o.proRetentionDays ?? free);
    if (free === 0 || pro === free || !this.o.proUsers) return deleteOlderThan(this.o.db, free);
    const all = await deleteOlderThan(this.o.db, pro);
    return all + (await deleteOthersOlderThan(this.o.db, free, await this.o.proUsers()));
  }

  close(): void {
    clearInterval(this.timer);
  }
}
