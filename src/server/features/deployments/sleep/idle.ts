import type { Logger } from "../../../log.js";
import { recordActivity } from "./sleep-repo.js";
import type { Db } from "../../../db/client.js";

// Idle deployments go to sleep (docs/hosting.md#sleeping). The gateway that serves a deployment's
// sessions (in its runner's process: every request reaches it, forwarded or not) tells Activity of
// each request from its start to its end, so an open stream is activity for as long as it stays
// open. Every check, the runner writes when its deployments were last active (the API's
// last_active_at, and which one a wake beyond the plan puts to sleep) and puts to sleep those idle
// for DEPLOY_IDLE_MS.

/** What the serving gateway reports: a request began; the function it returns ends it. */
export interface ActivityPort {
  begin(id: string): () => void;
}

export class Activity implements ActivityPort {
  /** requests (streams included) in progress, per deployment */
  private readonly open = new Map<string, number>();
  /** when each deployment last began or ended a request, or started running (performance.now()) */
  private readonly last = new Map<string, number>();
  /** active since the last write of last_active_at */
  private readonly dirty = new Set<string>();

  begin(id: string): () => void {
    this.open.set(id, (this.open.get(id) ?? 0) + 1);
    this.touch(id);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const n = (this.open.get(id) ?? 1) - 1;
      if (n <= 0) this.open.delete(id);
      else this.open.set(id, n);
      this.touch(id);
    };
  }

  /** It started running here, or was found not to sleep: its idle time counts from now. */
  touch(id: string): void {
    this.last.set(id, performance.now());
    this.dirty.add(id);
  }

  /** How long it has been idle (0 while a request or stream is open); undefined when nothing was seen of it here. */
  idleMs(id: string, now = performance.now()): number | undefined {
    if (this.open.has(id)) return 0;
    const at = this.last.get(id);
    return at === undefined ? undefined : now - at;
  }

  /** The deployments active since the last call, and those with a stream open now. */
  takeActive(): string[] {
    const ids = new Set([...this.dirty, ...this.open.keys()]);
    this.dirty.clear();
    return [...ids];
  }

  forget(id: string): void {
    this.last.delete(id);
    this.dirty.delete(id);
  }
}

export interface IdleWatchDeps {
  db: Db;
  log: Logger;
  activity: Activity;
  /** DEPLOY_IDLE_MS */
  idleMs: number;
  /** the deployments this runner holds, and whether each one runs and answers now */
  held(): string[];
  running(id: string): boolean;
  /** puts it to sleep under this runner's lease: false when it may not (kept awake, a connection, no longer running) */
  sleep(id: string): Promise<boolean>;
}

/** The runner's periodic check: writes activity, puts idle deployments to sleep. */
export class IdleWatch {
  private timer?: NodeJS.Timeout;
  private checking = false;
  readonly everyMs: number;

  constructor(private readonly d: IdleWatchDeps) {
    this.everyMs = Math.min(5000, Math.max(100, Math.floor(d.idleMs / 4)));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.check(), this.everyMs).unref();
  }

  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const { activity, idleMs } = this.d;
      await recordActivity(this.d.db, activity.takeActive());
      const now = performance.now();
      for (const id of this.d.held()) {
        const idle = activity.idleMs(id, now);
        // Never seen here (held, not running yet): its clock starts when it runs.
        if (idle === undefined) {
          if (this.d.running(id)) activity.touch(id);
          continue;
        }
        if (idle < idleMs || !this.d.running(id)) continue;
        // Whatever refused it (kept awake, a connection, a status other than running) is asked again one idle period later.
        if (!(await this.d.sleep(id))) activity.touch(id);
        else activity.forget(id);
      }
    } catch (e) {
      this.d.log.warn({ err: e }, "idle check failed");
    } finally {
      this.checking = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
