import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { Runner, RunnerEvent } from "../runtime/runner.js";
import { Watchdog } from "../runtime/process/watchdog.js";
import { claimAll, heartbeat, registerRunner } from "./placement/placement.js";
import { handOver, sweep, type Mover } from "./placement/placement-sweep.js";
import { Reconciler, type RemoteAuthPort } from "./reconciler.js";
import type { SecretBox } from "./secret-box.js";
import { Activity, IdleWatch } from "./sleep/idle.js";

// A process with the runner role: it registers its runner in PostgreSQL and heartbeats; its
// Reconciler (reconciler.ts) runs exactly the deployments placed on it and turns the Runner's
// events into their rows, fenced (docs/glossary.md#fencing). It never runs a deployment it does
// not hold a lease for:
// - no heartbeat reached the database for 70% of the lease: it stops every child itself (and its
//   watchdog, a separate process, does so even while this one is paused); the rest of the cluster
//   moves deployments only after the whole lease, by which time they are gone here;
// - a row that moved away, or was stopped or deleted, is stopped here at the next reconcile;
// - a clean stop hands each deployment over (stop here, then place elsewhere).
// One agent per cluster also sweeps (once per cluster per interval): runners whose heartbeat is
// older than the lease lose their deployments to live ones, and deployments waiting for room are
// placed.
//
// Alone (ROLES=all): the only runner. It claims every live deployment at start, never fences itself
// (there is nobody to take over) and keeps the rows on shutdown so the next start brings them back.

/** Alone, the runner has no capacity of its own to check: the plans' limits bound what it runs. */
const UNBOUNDED_MB = 2_147_483_647;
export const WAITING_FOR_RUNNER = "Waiting for room to run it: it starts as soon as there is space";

export interface AgentDeps {
  db: Db;
  log: Logger;
  box: SecretBox;
  runner: Runner;
  /** RUNNER_NAME */
  id: string;
  /** RUNNER_URL */
  url: string;
  capacityMb: number;
  /** DEPLOY_MEMORY_MB: what each deployment reserves */
  memoryMb: number;
  leaseMs: number;
  hostingPolicy: "admins" | "everyone";
  alone: boolean;
  /** once per cluster per interval: true for the one process that runs `name` now */
  claim(name: string, everyMs: number): Promise<boolean>;
  /** tells another runner to reconcile now (it would within a heartbeat anyway) */
  wake(runnerId: string): void;
  /** hears another process's wake-up of runner `runnerId` (TOPICS.runnerWake on the bus); returns the unsubscribe */
  onWake(runnerId: string, cb: () => void): () => void;
  /** the deployment's pinned definitions changed: every gateway looks them up again (TOPICS.exposure) */
  announce?: (id: string, proxyId: string) => void;
  /** told of each runner event before it is recorded (the metrics: restarts, install times) */
  onEvent?: (id: string, e: RunnerEvent) => void;
  /** PUBLIC_URL: where a toolset reaches its members */
  publicUrl?: string;
  /** opens a connection's OAuth grant for its link (reconciler.ts RemoteAuthPort) */
  remoteAuth?: RemoteAuthPort;
  /** DEPLOY_IDLE_MS: a deployment idle this long sleeps (0 or absent: never) */
  idleMs?: number;
}

export class RunnerAgent {
  private lastBeat = performance.now();
  private timer?: NodeJS.Timeout;
  /** registered and running what is placed here: ready for traffic */
  started = false;
  private readonly watchdog?: Watchdog;
  /** what runs here, under which lease (reconciler.ts) */
  private readonly reconciler: Reconciler;
  private readonly unsubscribe: () => void;
  readonly beatMs: number;
  /** this process, as the holder of the runner's name (random per start) */
  readonly instance = randomBytes(12).toString("hex");
  /** what the gateway serving this runner's sessions saw: requests and open streams per deployment (idle.ts) */
  readonly activity = new Activity();
  private readonly idle?: IdleWatch;

  constructor(private readonly d: AgentDeps) {
    if (!d.alone) this.watchdog = new Watchdog(Math.floor(d.leaseMs * 0.7), d.log);
    this.reconciler = new Reconciler({
      db: d.db,
      log: d.log,
      box: d.box,
      runner: d.runner,
      runnerId: d.id,
      instance: this.instance,
      hostingPolicy: d.hostingPolicy,
      alone: d.alone,
      watchdog: this.watchdog,
      announce: d.announce,
      onEvent: (id, e) => {
        // Idle time counts from the moment it runs.
        if (e.type === "running") this.activity.touch(id);
        d.onEvent?.(id, e);
      },
      publicUrl: d.publicUrl ?? "http://localhost",
      remoteAuth: d.remoteAuth,
    });
    if (d.idleMs && d.idleMs > 0) {
      const reconciler = this.reconciler;
      this.idle = new IdleWatch({
        db: d.db,
        log: d.log,
        activity: this.activity,
        idleMs: d.idleMs,
        held: () => reconciler.held().map(([id]) => id),
        running: (id) => d.runner.channel(id) !== undefined,
        sleep: (id) => reconciler.sleep(id),
      });
    }
    // Another process placed something here: reconcile now rather than at the next heartbeat.
    this.unsubscribe = d.onWake(d.id, () => void this.reconcile());
    this.beatMs = Math.max(250, Math.floor(d.leaseMs / 5));
  }

  get id(): string {
    return this.d.id;
  }

  /** Where gateways reach this runner (settled once its port is open, before start()). */
  get url(): string {
    return this.d.url;
  }

  set url(url: string) {
    this.d.url = url;
  }

  get runner(): Runner {
    return this.d.runner;
  }

  /** the only runner (ROLES=all) */
  get alone(): boolean {
    return this.d.alone;
  }

  holds(id: string): boolean {
    return this.reconciler.holds(id);
  }

  /** Registers, brings back what this runner held before a restart (killing what a previous process left), and starts heartbeating. */
  async start(): Promise<number> {
    const d = this.d;
    for (let waited = 0; !(await this.register()); waited += this.beatMs) {
      if (waited === 0)
        d.log.warn(
          { runner: d.id },
          "another live process holds this runner's name: waiting until its lease runs out (give each runner its own RUNNER_NAME)",
        );
      await new Promise((r) => setTimeout(r, this.beatMs));
      if (this.reconciler.closed) return 0;
    }
    if (d.alone) await claimAll(d.db, d.id);
    this.lastBeat = performance.now();
    this.watchdog?.arm();
    const started = await this.reconcile();
    this.timer = setInterval(() => void this.tick(), this.beatMs).unref();
    this.idle?.start();
    this.started = true;
    return started;
  }

  /** Takes the runner's name for this process; false while another live process holds it. */
  private async register(): Promise<boolean> {
    const d = this.d;
    const r = await registerRunner(
      d.db,
      { id: d.id, instance: this.instance, url: d.url, capacityMb: d.alone ? UNBOUNDED_MB : d.capacityMb, sandbox: d.runner.sandbox },
      { leaseMs: d.leaseMs, force: d.alone },
    );
    return r.ok;
  }

  /** Reconciles now: starts what is placed here, stops what is not (any more). Serialised; resolves with how many it started. */
  reconcile(): Promise<number> {
    return this.reconciler.reconcile();
  }

  /** Stops the deployment here without writing its row (whoever changed the row decided; one put to sleep keeps its volume). */
  release(id: string): Promise<void> {
    return this.reconciler.release(id);
  }

  /** Checks for idle deployments now (tests; the runner does so every few seconds itself). */
  checkIdle(): Promise<void> {
    return this.idle?.check() ?? Promise.resolve();
  }

  /** Every heartbeat: fence itself if the database has been out of reach too long, heartbeat, reconcile, and sweep if it is this runner's turn. */
  private async tick(): Promise<void> {
    const d = this.d;
    if (this.reconciler.closed) return;
    if (!d.alone && performance.now() - this.lastBeat > d.leaseMs * 0.7 && this.reconciler.size > 0) {
      d.log.error(
        { deployments: this.reconciler.size, ms: Math.round(performance.now() - this.lastBeat) },
        "no heartbeat reached the database within the lease: stopping every deployment here (they will be started elsewhere)",
      );
      await this.reconciler.fenceSelf();
    }
    try {
      if (!(await heartbeat(d.db, d.id, this.instance))) {
        // Presumed dead and removed meanwhile, or another process took the name: whatever ran here
        // is someone else's now. Stop it all, then take the name back if it is free.
        d.log.warn(
          { runner: d.id },
          "this runner lost its registration (presumed dead, or its name was taken): stopping its deployments here",
        );
        await this.reconciler.fenceSelf();
        if (!(await this.register())) return;
      }
    } catch (e) {
      d.log.warn({ err: e }, "heartbeat failed");
      return;
    }
    this.lastBeat = performance.now();
    if (this.watchdog) {
      if (!this.watchdog.armed) this.watchdog.arm();
      this.watchdog.tick();
    }
    // Alone, every live deployment is this runner's (one a worker process queued, say).
    if (d.alone) await claimAll(d.db, d.id).catch((e: unknown) => d.log.warn({ err: e }, "could not claim deployments"));
    await this.reconcile();
    if (!d.alone) {
      try {
        if (await d.claim("placement-sweep", this.beatMs)) await this.sweep();
      } catch (e) {
        d.log.error({ err: e }, "placement sweep failed");
      }
    }
  }

  private get mover(): Mover {
    const d = this.d;
    return { db: d.db, log: d.log, self: d.id, memoryMb: d.memoryMb, leaseMs: d.leaseMs, waiting: WAITING_FOR_RUNNER };
  }

  /** Moves the deployments of runners whose lease ran out, and places those waiting for room (placement-sweep.ts). */
  async sweep(): Promise<void> {
    for (const r of await sweep(this.mover)) {
      if (r === this.d.id) void this.reconcile();
      else this.d.wake(r);
    }
  }

  /** A clean stop: no new deployments; each one stops here, then is placed on another runner. */
  private async handOver(): Promise<void> {
    const held = this.reconciler.held();
    const moved = await handOver(this.mover, this.instance, held, () => this.reconciler.releaseAll(held.map(([id]) => id)));
    for (const r of moved) this.d.wake(r);
  }

  /** SIGTERM. Alone: every deployment stops and its row stays for the next start. In a cluster: hands them over first. */
  async shutdown(): Promise<void> {
    if (this.reconciler.closed) return;
    clearInterval(this.timer);
    this.idle?.close();
    this.unsubscribe();
    await this.reconciler.settled();
    this.reconciler.closed = true;
    if (!this.d.alone) await this.handOver().catch((e: unknown) => this.d.log.error({ err: e }, "hand-over failed"));
    await this.d.runner.shutdown();
    this.watchdog?.close();
  }
}
