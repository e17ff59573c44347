import { sql } from "drizzle-orm";
import { DEPLOY_TEXT, SLEEP_TEXT } from "~/shared/deployments.js";
import type { Db } from "../../../db/client.js";
import type { Logger } from "../../../log.js";
import type { DeploymentLifecycle } from "../lifecycle.js";
import { wakeRow, type SleepPolicy } from "./sleep-repo.js";

// A request to a sleeping deployment wakes it (docs/hosting.md#sleeping): the gateway the client
// reached asks the Waker, which wakes the row (one winner among concurrent wakes, in any process:
// sleep-repo.ts wakeRow), places it like a new start (preferring the runner whose disk holds its
// volume) and waits until it answers, within DEPLOY_START_TIMEOUT_MS. The requests of one process
// share one wake per deployment; each waits no longer than its own deadline.

export type WakeAnswer = { ok: true } | { ok: false; status: number; message: string; retryAfter?: number };

export interface WakerDeps {
  db: Db;
  log: Logger;
  lifecycle: Pick<DeploymentLifecycle, "launch" | "sleepOthers">;
  /** the owner's plan: its name and how many may be awake at once */
  planOf(userId: string): Promise<{ name: string; maxRunning: number }>;
  policy: SleepPolicy;
  /** PUBLIC_URL: a refused wake names the pages where its owner makes room */
  publicUrl: string;
  /** DEPLOY_START_TIMEOUT_MS */
  startTimeoutMs: number;
  /** whether this process serves it now (its runner's channel answers), where this process serves its sessions */
  servedHere?(id: string): boolean;
  /** told of each wake this process did: how long it took, and how it ended */
  onWake?(seconds: number, outcome: "ok" | "failed" | "timeout" | "refused"): void;
}

/** Statuses a wake waits through; anything else (crashed, crash looping, failed, stopped) ends the wait. */
const ON_THE_WAY = new Set(["sleeping", "queued", "installing", "starting"]);
const POLL_MS = 25;

export class Waker {
  private readonly pending = new Map<string, Promise<WakeAnswer>>();

  constructor(private readonly d: WakerDeps) {}

  /** Wakes the deployment if it sleeps and resolves once it answers (or why it cannot). */
  wake(id: string): Promise<WakeAnswer> {
    let p = this.pending.get(id);
    if (!p) {
      p = this.run(id).finally(() => this.pending.delete(id));
      this.pending.set(id, p);
    }
    return p;
  }

  private async run(id: string, again = false): Promise<WakeAnswer> {
    const began = performance.now();
    const deadline = began + this.d.startTimeoutMs;
    const done = (a: WakeAnswer, outcome: "ok" | "failed" | "timeout" | "refused") => {
      this.d.onWake?.((performance.now() - began) / 1000, outcome);
      return a;
    };
    const out = await wakeRow(this.d.db, id, (u) => this.d.planOf(u).then((p) => p.maxRunning), this.d.policy);
    if (!out.woke && out.reason === "gone") return { ok: false, status: 404, message: DEPLOY_TEXT.notFound };
    if (!out.woke && out.reason === "running_limit") {
      const plan = await this.ownerPlan(id);
      // What the owner's client shows: why, and what to do (a client cannot wake it by retrying alone).
      const base = this.d.publicUrl.replace(/\/+$/, "");
      const message = SLEEP_TEXT.wakeRefused(plan.name, plan.maxRunning, `${base}/deployments`, `${base}/subscription`);
      return done({ ok: false, status: 503, message, retryAfter: 30 }, "refused");
    }
    if (out.woke) {
      this.d.log.info({ deployment: id }, "waking a sleeping deployment for a request");
      await this.d.lifecycle.sleepOthers(out.slept);
      await this.d.lifecycle.launch(out.row);
    }
    // Wait for it to answer: the row says running once its new process has listed (never before:
    // a process still going to sleep may answer for a moment), and where this process serves its
    // sessions, its runner has the new channel.
    for (;;) {
      const row = await this.row(id);
      if (!row) return { ok: false, status: 404, message: DEPLOY_TEXT.notFound };
      // It went to sleep again between the look and the wake (it was running, idle): wake it once more.
      if (row.status === "sleeping" && !out.woke && !again) return this.run(id, true);
      if (row.status === "running" && row.runner_id && (this.d.servedHere?.(id) ?? true))
        return out.woke ? done({ ok: true }, "ok") : { ok: true };
      if (!ON_THE_WAY.has(row.status) && row.status !== "running")
        return done(
          { ok: false, status: 503, message: SLEEP_TEXT.wakeFailed((row.status_detail ?? row.status).split("\n")[0]!.slice(0, 300)) },
          "failed",
        );
      if (performance.now() > deadline)
        return done(
          { ok: false, status: 503, message: SLEEP_TEXT.wakeTimeout(Math.round(this.d.startTimeoutMs / 1000)), retryAfter: 5 },
          "timeout",
        );
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async row(id: string): Promise<{ status: string; status_detail: string | null; runner_id: string | null } | undefined> {
    const r = await this.d.db.execute<{ status: string; status_detail: string | null; runner_id: string | null }>(
      sql`select status, status_detail, runner_id from deployments where id = ${id}`,
    );
    return r.rows[0];
  }

  private async ownerPlan(id: string): Promise<{ name: string; maxRunning: number }> {
    const r = await this.d.db.execute<{ user_id: string }>(sql`select user_id from deployments where id = ${id}`);
    return this.d.planOf(r.rows[0]?.user_id ?? "");
  }
}
