import { DEPLOY_TEXT, hostingOpen } from "~/shared/deployments.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { CONNECTION_TEXT } from "~/shared/connections.js";
import type { Runner, RunnerEvent, Source, UpstreamAuth } from "../runtime/runner.js";
import type { ToolsetSpec } from "../runtime/runner.js";
import { TOOLSET_TOKEN_ENV } from "../api-keys/toolset-token.js";
import type { Watchdog } from "../runtime/process/watchdog.js";
import { recordEvent, type RecorderPort } from "./event-recorder.js";
import { assignedTo, fencedUpdate } from "./placement/placement.js";
import type { DeploymentRow } from "./repo.js";
import type { SecretBox } from "./secret-box.js";
import { proxiesOf } from "./repo.js";
import { isSleeping, putToSleep } from "./sleep/sleep-repo.js";

// What a runner runs: exactly the deployments placed on it. A reconcile starts what is placed here
// and stops what is not (any more); every write of a row is fenced (docs/glossary.md#fencing), and
// a lost lease stops the deployment here. The runner's events become those writes (event-recorder.ts).

const UNREADABLE_KEYS = "The deployment's keys cannot be decrypted (was SECRETS_KEY changed?). Stop it and deploy again.";

/** What opens a connection's OAuth grant for its link (ReconcilerDeps.remoteAuth). */
export type RemoteAuthPort = (sealed: string | null, store: (sealed: string) => Promise<unknown>) => UpstreamAuth | undefined;

export interface ReconcilerDeps {
  db: Db;
  log: Logger;
  box: SecretBox;
  runner: Runner;
  /** RUNNER_NAME */
  runnerId: string;
  /** this process, as the holder of the runner's name */
  instance: string;
  hostingPolicy: "admins" | "everyone";
  alone: boolean;
  /** the runner's dead-man's switch (in a cluster): it follows every child's process group */
  watchdog?: Watchdog;
  /** the deployment's pinned definitions changed: every gateway looks them up again (TOPICS.exposure) */
  announce?: (id: string, proxyId: string) => void;
  /** told of each runner event before it is recorded (the metrics: restarts, install times) */
  onEvent?: (id: string, e: RunnerEvent) => void;
  /** PUBLIC_URL: a toolset's members are reached at their Switchboard URLs there */
  publicUrl: string;
  /**
   * A connection signed in with OAuth: its link's sign-in from the sealed grant, storing a
   * refreshed one with `store` (a fenced write). Undefined when the grant cannot be read (the owner
   * signs in again). Given by the platform (connections/upstream-oauth.ts runnerAuth); absent: none can run.
   */
  remoteAuth?: RemoteAuthPort;
}

export class Reconciler {
  /** deployment id -> the fencing number it runs under here */
  private readonly leases = new Map<string, number>();
  private readonly pids = new Map<string, number>();
  private reconciling: Promise<unknown> = Promise.resolve();
  /** deployment id -> the end of what is queued for it (one()) */
  private readonly perDeployment = new Map<string, Promise<void>>();
  /** set once the runner shuts down: nothing more starts */
  closed = false;
  /** how runner events become row writes (event-recorder.ts) */
  private readonly recorder: RecorderPort;

  constructor(private readonly d: ReconcilerDeps) {
    this.recorder = {
      db: d.db,
      runnerId: d.runnerId,
      fenceOf: (id) => this.leases.get(id),
      write: (id, fields, extra) => this.write(id, fields, extra),
      spawned: (id, pid) => {
        this.pids.set(id, pid);
        this.d.watchdog?.add(pid);
      },
      exited: (id) => this.forgetPid(id),
      announce: d.announce,
    };
    d.runner.onEvents((id, e) => this.record(id, e));
  }

  holds(id: string): boolean {
    return this.leases.has(id);
  }

  /** how many deployments run here */
  get size(): number {
    return this.leases.size;
  }

  /** The deployments held here, with their fencing numbers. */
  held(): [string, number][] {
    return [...this.leases];
  }

  /** Resolves once the reconciles queued so far are done. */
  settled(): Promise<unknown> {
    return this.reconciling;
  }

  /** Runs `fn` after every reconcile queued before it, one at a time. */
  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.reconciling.then(fn);
    this.reconciling = next.catch((e: unknown) => this.d.log.error({ err: e }, "runner could not reconcile its deployments"));
    return next;
  }

  /** Reconciles now: starts what is placed here, stops what is not (any more). Serialised; resolves with how many it started. */
  reconcile(): Promise<number> {
    return this.serially(() => this.reconcileOnce());
  }

  private async reconcileOnce(): Promise<number> {
    if (this.closed) return 0;
    // Alone, the one runner needs no registration to run what it is given (a test's platform that never listens, say).
    const rows = await assignedTo(this.d.db, this.d.runnerId, this.d.alone ? null : this.d.instance);
    const want = new Map(rows.map((r) => [r.id, r]));
    for (const [id, fence] of [...this.leases]) {
      if (want.get(id)?.fence === fence) continue;
      this.d.log.info({ deployment: id }, "deployment no longer placed here: stopping it");
      await this.release(id);
    }
    let started = 0;
    for (const row of rows) {
      if (this.leases.get(row.id) === row.fence || this.closed) continue;
      const went = await this.one(row.id, async () => {
        if (this.leases.get(row.id) === row.fence || this.closed) return false;
        // Whatever still runs it here (an earlier placement's start, a process whose lease was lost)
        // is stopped first: the runner starts nothing twice, and the new lease's events are its own.
        if (this.leases.has(row.id) || this.d.runner.runs(row.id)) await this.stopHere(row.id);
        this.leases.set(row.id, row.fence);
        if (row.pid && row.pidStart) this.d.runner.reap(row.pid, row.pidStart);
        // A machine that lost a protection of its sandbox runs nobody's code but admins' (SANDBOX_INCOMPLETE).
        if (!hostingOpen(this.d.runner.sandbox.complete, this.d.hostingPolicy, row.ownerIsAdmin)) {
          await this.write(row.id, { status: "failed", statusDetail: DEPLOY_TEXT.hostingClosed, pid: null, pidStart: null });
          return false;
        }
        await this.launch(row);
        return true;
      });
      if (went) started++;
    }
    return started;
  }

  /**
   * Runs `fn` after whatever was queued for deployment `id` (its start by a reconcile, its stop):
   * a stop that arrived while a reconcile was starting the same deployment would otherwise take
   * its lease between the reconcile's write and its start, and leave a process whose events no
   * lease records (the row stuck in 'installing'). Different deployments do not wait for each other.
   */
  private one<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.perDeployment.get(id) ?? Promise.resolve()).then(fn, fn);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.perDeployment.set(id, tail);
    void tail.then(() => {
      if (this.perDeployment.get(id) === tail) this.perDeployment.delete(id);
    });
    return next;
  }

  private async launch(row: DeploymentRow) {
    let env: Record<string, string>;
    try {
      env = this.d.box.open(row.secrets);
    } catch {
      await this.write(row.id, { status: "failed", statusDetail: UNREADABLE_KEYS, exitCode: null, pid: null, pidStart: null });
      return;
    }
    const source = row.source as Source;
    // Signed in with OAuth: the runner refreshes the tokens and stores them back under its lease.
    let auth: UpstreamAuth | undefined;
    if (source.kind === "remote" && source.oauth) {
      auth = this.d.remoteAuth?.(row.upstreamGrant, (grant) => this.write(row.id, { upstreamGrant: grant }));
      if (!auth) {
        await this.write(row.id, {
          status: "failed",
          statusDetail: CONNECTION_TEXT.signInAgain,
          exitCode: null,
          pid: null,
          pidStart: null,
        });
        return;
      }
    }
    // A toolset: its members (those that still exist, its owner's) at their Switchboard URLs.
    let toolset: ToolsetSpec | undefined;
    if (source.kind === "toolset") {
      const proxies = await proxiesOf(
        this.d.db,
        row.userId,
        source.members.map((m) => m.deployment_id),
      );
      const base = this.d.publicUrl.replace(/\/$/, "");
      toolset = {
        name: source.name,
        token: env[TOOLSET_TOKEN_ENV] ?? "",
        members: source.members
          .filter((m) => proxies.has(m.deployment_id))
          .map((m) => ({ prefix: m.prefix, tools: m.tools, url: `${base}/${proxies.get(m.deployment_id)}/mcp` })),
      };
    }
    if (!(await this.write(row.id, { pid: null, pidStart: null }))) return;
    this.d.runner.start({ id: row.id, source, env, ...(auth ? { auth } : {}), ...(toolset ? { toolset } : {}) });
  }

  /**
   * Stops the deployment here without writing its row (whoever changed the row decided), in turn
   * with its start (`one`). One put to sleep (by a wake beyond its owner's plan, a lower plan)
   * keeps its volume for its next start.
   */
  release(id: string): Promise<void> {
    return this.one(id, async () => this.stopHere(id, await this.asleep(id)));
  }

  /**
   * Puts a deployment held here to sleep: its row first (under this runner's lease, only while it
   * runs and was not kept awake), then every gateway forgets where it ran, then its process stops
   * and its volume stays. False when the row refused (nothing changes here then).
   */
  sleep(id: string): Promise<boolean> {
    return this.one(id, async () => {
      const fence = this.leases.get(id);
      if (fence === undefined || this.closed) return false;
      const slept = await putToSleep(this.d.db, id, { runnerId: this.d.runnerId, fence });
      if (!slept) return false;
      this.d.announce?.(id, slept.proxyId);
      this.d.log.info({ deployment: id }, "deployment idle: sleeping until its next request");
      await this.stopHere(id, true);
      return true;
    });
  }

  private asleep(id: string): Promise<boolean> {
    return isSleeping(this.d.db, id).catch(() => false);
  }

  /** Stops all of `ids` here at once (a hand-over: a grace period is short). */
  async releaseAll(ids: string[]): Promise<void> {
    await Promise.all(ids.map((id) => this.release(id)));
  }

  private async stopHere(id: string, keep = false): Promise<void> {
    this.leases.delete(id);
    const pid = this.pids.get(id);
    await this.d.runner.stop(id, keep ? { keep } : undefined);
    if (pid !== undefined) {
      this.pids.delete(id);
      this.d.watchdog?.remove(pid);
    }
  }

  /** A fenced write of the deployment's row; a lost lease stops the deployment here. */
  private async write(id: string, fields: Parameters<typeof fencedUpdate>[3], extra?: { restarts?: true }): Promise<boolean> {
    const fence = this.leases.get(id);
    if (fence === undefined) return false;
    const ok = await fencedUpdate(this.d.db, id, { runnerId: this.d.runnerId, fence }, fields, extra);
    if (!ok && this.leases.get(id) === fence) {
      this.d.log.warn({ deployment: id, fence }, "lease lost (the deployment moved or is gone): stopping it here");
      // In line with reconciles, so a placement back onto this runner cannot start before the old one is gone.
      this.leases.delete(id);
      // Unless a reconcile queued before this placed it here again meanwhile (it stopped the old one itself).
      void this.one(id, async () => {
        if (!this.leases.has(id)) await this.stopHere(id, await this.asleep(id));
      });
    }
    return ok;
  }

  /** The runner's events, as statuses (only under a lease this runner still holds): event-recorder.ts. */
  private async record(id: string, e: RunnerEvent): Promise<void> {
    this.d.onEvent?.(id, e);
    await recordEvent(this.recorder, id, e);
  }

  private forgetPid(id: string) {
    const pid = this.pids.get(id);
    if (pid === undefined) return;
    this.pids.delete(id);
    this.d.watchdog?.remove(pid);
  }

  /** Every child dies at once (SIGKILL to each process group, no grace), then the slots are released. */
  async fenceSelf(): Promise<void> {
    for (const pid of this.pids.values()) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    const ids = [...this.leases.keys()];
    this.leases.clear();
    await Promise.all(ids.map((id) => this.stopHere(id)));
  }
}
