import { eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.js";
import { deployments } from "../../../db/schema.js";
import { SLEEP_TEXT } from "~/shared/deployments.js";

// The rows of sleeping deployments (docs/hosting.md#sleeping). A deployment sleeps with no runner
// (runner_id null, so nothing places, counts or runs it) and its fencing number raised
// (docs/glossary.md#fencing); `slept_on` says where its volume waits. Waking
// is a conditional write under the owner's deploy lock: of any number of concurrent first requests,
// in any process, exactly one wakes it.

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type DeploymentRow = typeof deployments.$inferSelect;

/** Kinds whose deployment holds a process: the only ones that sleep, and the only ones a plan counts. */
const HOSTED = sql`coalesce(source->>'kind', '') not in ('remote', 'toolset')`;
/** Awake: holds a running slot (anything but failed, stopped and sleeping). */
const AWAKE = sql`status not in ('failed', 'stopped', 'sleeping')`;

/** A row going to sleep: no runner (the one it leaves is where its volume is), fencing number raised; `detail`: why, for its owner. */
const asleep = (
  detail: string | null = null,
) => sql`status = 'sleeping', status_detail = ${detail}, pid = null, pid_start = null, exit_code = null,
  runner_id = null, slept_on = runner_id, fence = fence + 1, updated_at = now()`;

/** What sleeping needs to know: how long idle a deployment must be before a wake may put it to sleep for another. */
export interface SleepPolicy {
  /** a wake beyond the plan puts the owner's least recently used deployment to sleep only if idle this long */
  lruIdleMs: number;
}

/** A deployment put to sleep to make room (its runner stops it, keeping its volume). */
export interface Slept {
  id: string;
  proxyId: string;
  runnerId: string | null;
}

/**
 * A runner puts a deployment it holds to sleep: only under its lease, only while it runs, and
 * only if its owner did not keep it awake. Undefined when any of these no longer holds.
 */
export async function putToSleep(db: Db, id: string, lease: { runnerId: string; fence: number }): Promise<Slept | undefined> {
  const r = await db.execute<{ proxy_id: string }>(sql`
    update deployments
       set ${asleep()}
     where id = ${id} and runner_id = ${lease.runnerId} and fence = ${lease.fence} and status = 'running' and not keep_awake
     returning proxy_id`);
  const row = r.rows[0];
  return row ? { id, proxyId: row.proxy_id, runnerId: lease.runnerId } : undefined;
}

/** The runner saw requests or open streams for these deployments since its last write. */
export async function recordActivity(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`update deployments set last_active_at = now() where id = any(${sql.param(ids)}::text[])`);
}

/** Whether the deployment sleeps now (a runner told to stop it keeps its volume then). */
export async function isSleeping(db: Db, id: string): Promise<boolean> {
  const r = await db.execute(sql`select 1 from deployments where id = ${id} and status = 'sleeping'`);
  return r.rows.length > 0;
}

/**
 * Room for one more awake deployment of `userId` within `maxRunning` (`except`: the one waking or
 * restarting). Beyond it, the owner's least recently used awake deployment that has been idle for
 * at least `policy.lruIdleMs` is put to sleep (as many as needed); without such a one, or without
 * sleeping (`policy` undefined), there is no room. Runs under the owner's deploy lock. Each one
 * put to sleep says so to its owner, naming `forName` (the server that took its place).
 */
export async function awakeSlot(
  tx: Tx,
  userId: string,
  maxRunning: number,
  except: string,
  policy: SleepPolicy | undefined,
  forName?: string,
): Promise<{ ok: true; slept: Slept[] } | { ok: false }> {
  const room = await roomFor(tx, userId, maxRunning, except, policy, true);
  if (!room.ok) return room;
  const slept: Slept[] = [];
  for (const d of room.sleeps) {
    await tx.execute(sql`
      update deployments
         set ${asleep(forName ? SLEEP_TEXT.sleptFor(forName) : null)}
       where id = ${d.id}`);
    slept.push({ id: d.id, proxyId: d.proxy_id, runnerId: d.runner_id });
  }
  return { ok: true, slept };
}

/** The deployments that would go to sleep to make room (awakeSlot); `lock`: they are taken for the caller's transaction. */
async function roomFor(
  q: Pick<Db, "execute">,
  userId: string,
  maxRunning: number,
  except: string,
  policy: SleepPolicy | undefined,
  lock: boolean,
): Promise<{ ok: true; sleeps: { id: string; proxy_id: string; runner_id: string | null; server_ref: string }[] } | { ok: false }> {
  const [awake] = (
    await q.execute<{ n: number }>(
      sql`select count(*)::int as n from deployments where user_id = ${userId} and id <> ${except} and ${AWAKE} and ${HOSTED}`,
    )
  ).rows;
  const over = (awake?.n ?? 0) - maxRunning + 1;
  if (over <= 0) return { ok: true, sleeps: [] };
  if (!policy) return { ok: false };
  const idle = await q.execute<{ id: string; proxy_id: string; runner_id: string | null; server_ref: string }>(sql`
    select id, proxy_id, runner_id, server_ref from deployments
     where user_id = ${userId} and id <> ${except} and status = 'running' and not keep_awake and ${HOSTED}
       and coalesce(last_active_at, started_at, created_at) <= now() - (${policy.lruIdleMs} * interval '1 millisecond')
     order by coalesce(last_active_at, started_at, created_at), created_at, id
     limit ${over}
     ${lock ? sql`for update` : sql``}`);
  if (idle.rows.length < over) return { ok: false };
  return { ok: true, sleeps: idle.rows };
}

/**
 * What waking `except` (or deploying a new one: any id not in use) would do now, for the panel to
 * say before the owner acts: nothing, put these servers to sleep, or be refused (every awake one is
 * in use). A look only: the deploy or wake decides again under the lock.
 */
export async function sleepPreview(
  db: Db,
  userId: string,
  maxRunning: number,
  except: string,
  policy: SleepPolicy | undefined,
): Promise<{ ok: true; sleeps: string[] } | { ok: false }> {
  const room = await roomFor(db, userId, maxRunning, except, policy, false);
  return room.ok ? { ok: true, sleeps: room.sleeps.map((d) => d.server_ref) } : room;
}

export type WakeOutcome =
  { woke: true; row: DeploymentRow; slept: Slept[] } | { woke: false; reason: "not_sleeping" | "gone" | "running_limit" };

/**
 * Wakes a sleeping deployment: queued again, unplaced, fencing number raised, within the plan's
 * running limit (making room as awakeSlot does). Only one of concurrent wakes wins; the others
 * find it no longer sleeping and wait for it like any request.
 */
export async function wakeRow(
  db: Db,
  id: string,
  maxRunning: (userId: string) => Promise<number>,
  policy: SleepPolicy,
): Promise<WakeOutcome> {
  const [owner] = (
    await db.execute<{ user_id: string; status: string; server_ref: string }>(
      sql`select user_id, status, server_ref from deployments where id = ${id}`,
    )
  ).rows;
  if (!owner) return { woke: false, reason: "gone" };
  if (owner.status !== "sleeping") return { woke: false, reason: "not_sleeping" };
  const max = await maxRunning(owner.user_id);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`deploy:${owner.user_id}`}, 0))`);
    const [now] = (await tx.execute<{ status: string }>(sql`select status from deployments where id = ${id} for update`)).rows;
    if (!now) return { woke: false, reason: "gone" } as const;
    if (now.status !== "sleeping") return { woke: false, reason: "not_sleeping" } as const;
    const slot = await awakeSlot(tx, owner.user_id, max, id, policy, owner.server_ref);
    if (!slot.ok) return { woke: false, reason: "running_limit" } as const;
    const [row] = await tx
      .update(deployments)
      .set({
        status: "queued",
        statusDetail: null,
        exitCode: null,
        restarts: 0,
        pid: null,
        pidStart: null,
        fence: sql`${deployments.fence} + 1`,
        lastActiveAt: sql`now()`,
        updatedAt: new Date(),
      })
      .where(eq(deployments.id, id))
      .returning();
    return { woke: true, row: row!, slept: slot.slept } as const;
  });
}

/** The owner's choice for one deployment (Pro): stay awake while idle, or sleep again. */
export async function setKeepAwake(db: Db, id: string, keep: boolean): Promise<void> {
  await db.execute(sql`update deployments set keep_awake = ${keep}, updated_at = now() where id = ${id}`);
}

/**
 * A user's deployments that are awake (hosted code only), least recently used first: what a lower
 * plan puts to sleep. Two last seen at once (the runner records activity in batches) go oldest first.
 */
export async function awakeOf(db: Db, userId: string): Promise<Slept[]> {
  const r = await db.execute<{ id: string; proxy_id: string; runner_id: string | null }>(sql`
    select id, proxy_id, runner_id from deployments
     where user_id = ${userId} and ${AWAKE} and ${HOSTED}
     order by keep_awake, coalesce(last_active_at, started_at, created_at), created_at, id`);
  return r.rows.map((d) => ({ id: d.id, proxyId: d.proxy_id, runnerId: d.runner_id }));
}

/** Puts one deployment to sleep wherever it runs (a plan's limit): its runner stops it, keeping its volume. */
export async function sleepNow(db: Db, id: string): Promise<boolean> {
  const r = await db.execute(sql`
    update deployments
       set ${asleep()}
     where id = ${id} and ${AWAKE}`);
  return (r.rowCount ?? 0) > 0;
}
