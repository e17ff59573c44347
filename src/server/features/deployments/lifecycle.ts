import { DEPLOY_TEXT, hostingOpen } from "../../../shared/deployments.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { Runner, RunnerEvent, Source } from "../runtime/runner.js";
import { deleteDeployment, findDeployment, listDeploymentsToRecover, listLiveDeployments, listUserDeployments, recordCrash, saveCapabilities, updateDeployment, usersWithLiveDeployments, type DeploymentRow, type ServerKind } from "./repo.js";
import type { SecretBox } from "./secret-box.js";

// The one owner of deployment state. A Runner starts and stops processes and reports what
// happens; this turns its events into the rows owners and admins see, and is the only way the
// rest of the platform starts, stops or limits a deployment.

const UNREADABLE_KEYS = "The deployment's keys cannot be decrypted (was SECRETS_KEY changed?). Stop it and deploy again.";

export interface LifecycleDeps {
  db: Db;
  log: Logger;
  box: SecretBox;
  runner: Runner;
  /** SANDBOX_INCOMPLETE: who may run code while a protection of the sandbox is missing */
  hostingPolicy: "admins" | "everyone";
}

export class DeploymentLifecycle {
  constructor(private readonly d: LifecycleDeps) {
    d.runner.onEvents((id, e) => this.record(id, e));
  }

  get runner(): Runner {
    return this.d.runner;
  }

  /** Hands a recorded deployment to the runner with its keys opened. */
  async launch(row: DeploymentRow): Promise<void> {
    let env: Record<string, string>;
    try {
      env = this.d.box.open(row.secrets);
    } catch {
      await updateDeployment(this.d.db, row.id, { status: "failed", statusDetail: UNREADABLE_KEYS, exitCode: null, pid: null, pidStart: null });
      return;
    }
    this.d.runner.start({ id: row.id, source: row.source as Source, env });
  }

  /** Stops what the deployment runs; its row goes too unless `keepRow` (a plan change, a replaced deploy). */
  async stop(id: string, opts: { keepRow?: boolean } = {}): Promise<void> {
    await this.d.runner.stop(id);
    if (!opts.keepRow) await deleteDeployment(this.d.db, id);
  }

  /** Account deletion: the user's deployments are stopped before their rows go with the account. */
  async stopAllOf(userId: string): Promise<void> {
    for (const r of await listUserDeployments(this.d.db, userId)) await this.stop(r.id);
  }

  /** A plan that allows fewer: the newest live deployments beyond `maxRunning` are stopped (kept, with `reason`). */
  async stopBeyond(userId: string, maxRunning: number, reason: string): Promise<number> {
    const live = await listLiveDeployments(this.d.db, userId);
    const extra = live.slice(0, Math.max(0, live.length - maxRunning));
    for (const dep of extra) {
      await this.stop(dep.id, { keepRow: true });
      await updateDeployment(this.d.db, dep.id, { status: "stopped", statusDetail: reason, pid: null, pidStart: null });
      this.d.log.info({ deployment: dep.id, maxRunning }, "deployment stopped: over the plan's limit");
    }
    return extra.length;
  }

  /** Users with at least `n` live deployments (candidates for a plan check). */
  usersWithAtLeast(n: number): Promise<string[]> {
    return usersWithLiveDeployments(this.d.db, n);
  }

  /**
   * After a platform restart (even kill -9): a process recorded for a deployment is killed only
   * if its pid still belongs to the same process (same start time), then every deployment that
   * should run is started once.
   */
  async recover(): Promise<number> {
    let started = 0;
    for (const r of await listDeploymentsToRecover(this.d.db)) {
      if (r.pid && r.pidStart) this.d.runner.reap(r.pid, r.pidStart);
      // A machine that lost a protection of its sandbox runs nobody's code but admins' (SANDBOX_INCOMPLETE).
      if (!hostingOpen(this.d.runner.sandbox.complete, this.d.hostingPolicy, r.ownerIsAdmin)) {
        await updateDeployment(this.d.db, r.id, { status: "failed", statusDetail: DEPLOY_TEXT.hostingClosed, pid: null, pidStart: null });
        continue;
      }
      await updateDeployment(this.d.db, r.id, { pid: null, pidStart: null });
      await this.launch(r);
      started++;
    }
    return started;
  }

  /** SIGTERM: every deployment stops; the rows stay so the next start brings them back. */
  shutdown(): Promise<void> {
    return this.d.runner.shutdown();
  }

  /** The runner's events, as statuses. */
  private async record(id: string, e: RunnerEvent): Promise<void> {
    const db = this.d.db;
    switch (e.type) {
      case "installing":
        return updateDeployment(db, id, { status: "installing", statusDetail: null, exitCode: null });
      case "starting":
        return updateDeployment(db, id, { status: "starting" });
      case "spawned":
        return updateDeployment(db, id, { pid: e.pid, pidStart: e.pidStart });
      case "running": {
        const row = await findDeployment(db, id);
        if (row && e.listing) await saveCapabilities(db, { kind: row.serverKind as ServerKind, ref: row.serverRef }, e.listing);
        return updateDeployment(db, id, { status: "running", statusDetail: null, exitCode: null, startedAt: new Date() });
      }
      case "failed":
        return updateDeployment(db, id, { status: "failed", statusDetail: e.detail, exitCode: e.code, pid: null, pidStart: null });
      case "crashed": {
        const recorded = await recordCrash(db, id, { status: e.looping ? "crash_looping" : "crashed", statusDetail: e.detail, exitCode: e.exit.code });
        // Its row is gone (the account with it): nothing should bring it back.
        if (!recorded) void this.d.runner.stop(id);
        return;
      }
    }
  }
}
