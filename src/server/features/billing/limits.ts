import { BILLING_TEXT, planLimits, PLANS } from "~/shared/billing.js";
import { claimRun } from "../../cluster/jobs.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { planOf } from "./plan.js";

// Hosting limits follow the plan (docs/billing.md, Limits follow the plan): when a plan lowers
// them, the deployments beyond it are stopped - newest first, kept with the reason shown - never
// deleted. Billing decides how many may run; the deployments feature owns their state and does
// the stopping through this port.

/** What billing needs from hosting; implemented by the deployments feature. */
export interface HostingLimits {
  /**
   * Stops the user's newest live deployments beyond `maxKept` (kept, status 'stopped' with
   * `reason`) and puts the least recently used awake ones beyond `maxRunning` to sleep; returns how many.
   */
  stopBeyond(userId: string, limits: { maxRunning: number; maxKept: number }, reason: string): Promise<number>;
  /** Users keeping more than `maxKept` deployments or running more than `maxRunning`. */
  usersBeyond(limits: { maxRunning: number; maxKept: number }): Promise<string[]>;
}

export interface PlanLimitsDeps {
  db: Db;
  log: Logger;
  /** absent in the reconcile command: the app's own periodic check then stops what is over the limit */
  hosting?: HostingLimits;
  /** DEPLOY_IDLE_MS: with sleeping, a plan keeps more deployments than it runs (repo planLimits) */
  idleMs: number;
  /** every sweep first settles the test mode's ended periods (they may lower a plan) */
  settleEndedPeriods: () => Promise<void>;
  sweepMs: number;
}

/** The periodic sweep's row in cluster_jobs. */
export const SWEEP_JOB = "billing-sweep";

export class PlanLimits {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(private readonly d: PlanLimitsDeps) {}

  /** The user's deployments beyond what their plan runs are stopped; returns how many. */
  async enforce(userId: string): Promise<number> {
    if (!this.d.hosting) return 0;
    const plan = await planOf(this.d.db, userId);
    const limits = planLimits(plan, this.d.idleMs);
    const reason = limits.sleep
      ? BILLING_TEXT.stoppedByKeptLimit(plan.name, limits.maxKept)
      : BILLING_TEXT.stoppedByPlan(plan.name, limits.maxRunning);
    return this.d.hosting.stopBeyond(userId, limits, reason);
  }

  /** Periodically: ended test-mode periods, then the limits of everyone running more than Free allows. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.d.settleEndedPeriods();
      if (this.d.hosting)
        for (const userId of await this.d.hosting.usersBeyond(planLimits(PLANS.free, this.d.idleMs))) await this.enforce(userId);
    } catch (e) {
      this.d.log.error({ err: e }, "billing sweep failed");
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * The periodic check (BILLING_SWEEP_MS); every app process starts it, and each interval only the
   * one that claims the run sweeps (cluster/jobs.ts). An explicit sweep() always runs.
   */
  start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.d.sweepMs).unref();
  }

  private async tick(): Promise<void> {
    try {
      if (!(await claimRun(this.d.db, SWEEP_JOB, this.d.sweepMs))) return;
    } catch (e) {
      this.d.log.error({ err: e }, "billing sweep: could not claim this interval's run");
      return;
    }
    await this.sweep();
  }

  close(): void {
    clearInterval(this.timer);
  }
}
