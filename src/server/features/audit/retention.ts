import { claimRun } from "../../cluster/jobs.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { trimAudit } from "./repo.js";

export const AUDIT_RETENTION_JOB = "audit-retention";

/**
 * Keeps the audit log to its retention (AUDIT_RETENTION_DAYS, longer for Pro owners). Every web
 * process ticks; once an interval only the one that claims the run trims (cluster/jobs.ts).
 */
export class AuditRetention {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly o: { db: Db; log: Logger; days: number; proDays: number; proUsers: () => Promise<string[]>; everyMs?: number },
  ) {}

  start(): void {
    const every = this.o.everyMs ?? 60 * 60_000;
    this.timer ??= setInterval(() => void this.tick(every), every).unref();
  }

  private async tick(every: number): Promise<void> {
    try {
      if (await claimRun(this.o.db, AUDIT_RETENTION_JOB, every)) await this.sweep();
    } catch (e) {
      this.o.log.error({ err: e }, "audit log retention failed");
    }
  }

  async sweep(): Promise<number> {
    return trimAudit(this.o.db, { days: this.o.days, proDays: this.o.proDays, pro: await this.o.proUsers() });
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
