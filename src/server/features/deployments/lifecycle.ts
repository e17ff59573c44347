import type { SandboxInfo } from "~/shared/deployments.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { Runner } from "../runtime/runner.js";
import { assignTo, findRunner, liveRunners, place, stopPlaced } from "./placement/placement.js";
import {
  deleteDeployment,
  findDeployment,
  listLiveDeployments,
  listUserDeployments,
  usersWithLiveDeployments,
  type DeploymentRow,
} from "./repo.js";
import { WAITING_FOR_RUNNER, type RunnerAgent } from "./runner-agent.js";
import { awakeOf, sleepNow, type Slept } from "./sleep/sleep-repo.js";
import type { DeploymentResources } from "./resources.js";

// The one owner of deployment state, as the rest of the platform sees it: the only way to start,
// stop or limit a deployment, in any process. Starting places the deployment on a runner (the
// one in this process, or another machine's, which is woken); stopping writes the row first and
// then has the runner holding it stop it (here, or over the cluster's internal connection). Each
// runner's RunnerAgent turns what its processes do into the rows (runner-agent.ts, reconciler.ts).

/** How this process reaches the runners of other processes (stop a deployment, read its output). */
export interface RunnerCalls {
  stop(url: string, id: string): Promise<void>;
  logs(url: string, id: string): Promise<string[] | null>;
  wake(runnerId: string): void;
}

export interface LifecycleDeps {
  db: Db;
  log: Logger;
  /** the runner role of this process, if it has one */
  agent?: RunnerAgent;
  calls: RunnerCalls;
  memoryMb: number;
  leaseMs: number;
  /** the deployments' OAuth resources (features/oauth keeps them): a removed deployment's goes with it, its tokens too */
  resources: Pick<DeploymentResources, "gone">;
  /** a deployment's target changed (it sleeps now): every gateway forgets where it ran (TOPICS.exposure) */
  announce?: (id: string, proxyId: string) => void;
}

/** What hosting looks like from a process without a runner: the cluster's runners, until one says otherwise. */
const NO_RUNNER: SandboxInfo = {
  kind: "none",
  network: "none",
  layer: "no runner has registered yet",
  guarantees: [],
  complete: false,
  warnings: ["No runner is alive: deployments wait until one registers"],
  notes: [],
};

export class DeploymentLifecycle {
  private clusterSandbox: SandboxInfo = NO_RUNNER;
  private sandboxTimer?: NodeJS.Timeout;

  constructor(private readonly d: LifecycleDeps) {}

  /** Without a runner of its own, follows the live runners' sandbox (every 5 s); the platform calls it when it listens. */
  start(): void {
    if (this.d.agent || this.sandboxTimer) return;
    void this.refreshSandbox();
    this.sandboxTimer = setInterval(() => void this.refreshSandbox(), 5000).unref();
  }

  get agent(): RunnerAgent | undefined {
    return this.d.agent;
  }

  /** The runner of this process (all-in-one, or a runner role). */
  get runner(): Runner | undefined {
    return this.d.agent?.runner;
  }

  /** What isolates hosted code: this process's runner, or (without one) every live runner's, complete only if all are. */
  get sandbox(): SandboxInfo {
    return this.d.agent?.runner.sandbox ?? this.clusterSandbox;
  }

  private async refreshSandbox(): Promise<number> {
    try {
      const live = await liveRunners(this.d.db, this.d.leaseMs);
      if (live.length === 0) {
        this.clusterSandbox = NO_RUNNER;
        return 0;
      }
      const first = live[0]!.sandbox;
      this.clusterSandbox = { ...first, complete: live.every((r) => r.sandbox.complete) };
      return live.length;
    } catch (e) {
      this.d.log.warn({ err: e }, "could not read the runners");
      return -1;
    }
  }

  /**
   * Whether a deploy may go ahead, for a deploy request: this process's runner's sandbox, or the
   * live runners' read just now. With no runner alive at all the deploy is accepted and waits for
   * one; that runner checks its own sandbox against its owner before it runs anything.
   */
  async sandboxAllows(allowed: (complete: boolean) => boolean): Promise<boolean> {
    if (this.d.agent) return allowed(this.d.agent.runner.sandbox.complete);
    const live = await this.refreshSandbox();
    return live === 0 || allowed(this.clusterSandbox.complete);
  }

  /** Places a recorded deployment on a runner with room, which starts it (at once when it is this process's); a woken one prefers the runner it slept on. */
  async launch(row: DeploymentRow): Promise<void> {
    const agent = this.d.agent;
    if (agent?.alone) {
      if (await assignTo(this.d.db, row.id, agent.id)) await agent.reconcile();
      return;
    }
    // Conditional on the row as recorded, so a sweep placing the same new row at the same moment cannot place it twice.
    const placed = await place(this.d.db, row.id, {
      memoryMb: this.d.memoryMb,
      leaseMs: this.d.leaseMs,
      waiting: WAITING_FOR_RUNNER,
      onlyIf: { runnerId: row.runnerId, fence: row.fence },
      prefer: row.sleptOn,
    });
    if (!placed || placed === "gone") {
      if (!placed) this.d.log.warn({ deployment: row.id }, "no runner has room: the deployment waits");
      return;
    }
    if (placed.runnerId === this.d.agent?.id) await this.d.agent.reconcile();
    else this.d.calls.wake(placed.runnerId);
  }

  /** Stops what the deployment runs; its row goes too unless `keepRow` (a plan change, a replaced deploy). */
  async stop(id: string, opts: { keepRow?: boolean } = {}): Promise<void> {
    const row = await findDeployment(this.d.db, id);
    // The row changes first, so no runner starts it again meanwhile; then its runner stops it.
    if (!opts.keepRow) await deleteDeployment(this.d.db, id, this.d.resources);
    await this.halt(id, row?.runnerId ?? null);
  }

  /**
   * A restart in place whose row was already written (repo restartInPlace: unplaced, fence
   * raised): the runner that held it stops it now, then it is placed and started like a new one.
   */
  async restart(row: DeploymentRow, heldBy: string | null): Promise<void> {
    await this.halt(row.id, heldBy);
    await this.launch(row);
  }

  /** Has the runner holding it stop it. A runner out of reach stops it itself at its next reconcile (or has lost its lease). */
  private async halt(id: string, runnerId: string | null): Promise<void> {
    const agent = this.d.agent;
    if (agent && (agent.holds(id) || runnerId === agent.id || runnerId === null)) return agent.release(id);
    if (!runnerId) return;
    const r = await findRunner(this.d.db, runnerId);
    if (!r) return;
    await this.d.calls
      .stop(r.url, id)
      .catch((e: unknown) =>
        this.d.log.warn(
          { err: e, deployment: id, runner: runnerId },
          "could not reach the runner to stop a deployment: it stops it at its next reconcile",
        ),
      );
  }

  /** The last lines of its output, from the runner that holds it. */
  async logs(row: DeploymentRow): Promise<string[] | null> {
    const agent = this.d.agent;
    if (agent && (agent.holds(row.id) || row.runnerId === agent.id)) return agent.runner.logs(row.id);
    if (!row.runnerId) return null;
    const r = await findRunner(this.d.db, row.runnerId);
    if (!r) return null;
    return this.d.calls.logs(r.url, row.id).catch(() => null);
  }

  /** Account deletion: the user's deployments are stopped before their rows go with the account. */
  async stopAllOf(userId: string): Promise<void> {
    for (const r of await listUserDeployments(this.d.db, userId)) await this.stop(r.id);
  }

  /** Deployments a wake or a deploy put to sleep to make room (their rows say so already): their runners stop them, keeping their volumes. */
  async sleepOthers(slept: readonly Slept[]): Promise<void> {
    for (const s of slept) {
      this.d.log.info({ deployment: s.id }, "deployment put to sleep: its owner woke or deployed another beyond the plan");
      this.d.announce?.(s.id, s.proxyId);
      await this.halt(s.id, s.runnerId);
    }
  }

  /**
   * A plan that allows fewer: the newest live deployments beyond `maxKept` are stopped (kept, with
   * `reason`); of the rest, the least recently used awake beyond `maxRunning` are put to sleep
   * (where deployments sleep; without sleeping maxKept is maxRunning). Returns how many changed.
   */
  async stopBeyond(userId: string, limits: { maxRunning: number; maxKept: number }, reason: string): Promise<number> {
    const live = await listLiveDeployments(this.d.db, userId);
    const extra = live.slice(0, Math.max(0, live.length - limits.maxKept));
    for (const dep of extra) {
      await stopPlaced(this.d.db, dep.id, reason);
      await this.halt(dep.id, dep.runnerId);
      this.d.log.info({ deployment: dep.id, maxKept: limits.maxKept }, "deployment stopped: over the plan's limit");
    }
    const awake = await awakeOf(this.d.db, userId);
    const sleepy = awake.slice(0, Math.max(0, awake.length - limits.maxRunning));
    for (const dep of sleepy) if (await sleepNow(this.d.db, dep.id)) await this.sleepOthers([dep]);
    return extra.length + sleepy.length;
  }

  /** Users keeping more than `kept` deployments or running more than `awake` (candidates for a plan check). */
  usersBeyond(limits: { maxRunning: number; maxKept: number }): Promise<string[]> {
    return usersWithLiveDeployments(this.d.db, limits);
  }

  /**
   * Start-up of a runner (even after kill -9): a process recorded for one of its deployments is
   * killed only if its pid still belongs to the same process (same start time), then every
   * deployment placed on it is started once. Resolves with how many it started.
   */
  async recover(): Promise<number> {
    return this.d.agent ? this.d.agent.start() : 0;
  }

  /** SIGTERM: this process's runner stops (alone: the rows stay for the next start; in a cluster: handed over first). */
  async shutdown(): Promise<void> {
    clearInterval(this.sandboxTimer);
    await this.d.agent?.shutdown();
  }
}
