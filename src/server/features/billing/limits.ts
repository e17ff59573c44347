import { BILLING_TEXT, PLANS } from "~/shared/billing.js";
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
  /** Stops the user's newest live deployments beyond `maxRunning` (kept, status 'stopped' with `reason`); returns how many. */
  stopBeyond(userId: string, maxRunning: number, reason: string): Promise<number>;
  /** Users with at least `n` live deployments. */
  usersWithAtLeast(n: number): Promise<string[]>;
}

export interface PlanLimitsDeps {
  db: Db;
  log: Logger;
  /** absent in the reconcile command: the app's own periodic check then stops what is over the limit */
  hosting?: HostingLimits;
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
    return this.d.hosting.stopBeyond(userId, plan.maxRunning, BILLING_TEXT.stoppedByPlan(plan.name, plan.maxRunning));
  }

  /** Periodically: ended test-mode periods, then the limits of everyone running more than Free allows. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.d.settleEndedPeriods();
      if (this.d.hosting) for (const userId of await this.d.hosting.usersWithAtLeast(PLANS.free.maxRunning + 1)) await this.enforce(userId);
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
