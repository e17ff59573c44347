import { and, eq, getTableColumns, isNull, notInArray, sql } from "drizzle-orm";
import type { SandboxInfo } from "~/shared/deployments.js";
import type { Db } from "../../../db/client.js";
import { deployments, profiles, runners } from "../../../db/schema.js";
import { RESTING, type DeploymentRow } from "../repo.js";

// Where deployments run (docs/operations.md): runner machines register here and heartbeat; each
// live deployment is placed on one runner under a fencing number (docs/glossary.md#fencing).
//
// Policy: spread. A new deployment goes to a live, non-draining runner whose sandbox holds every
// guarantee if there is one with room (elsewhere only admins' code may run), and among those to
// the one with the most free reserved memory (capacity minus DEPLOY_MEMORY_MB for each live deployment it holds) that still
// has room for one more. Spreading keeps what a machine loss moves small and uses every runner
// from the start; packing would leave runners idle until the first fills up and make its loss the
// largest possible.

export type RunnerRow = typeof runners.$inferSelect;

/** Placed on a runner: live, and not asleep (a sleeping deployment is on no runner until a request wakes it). */
const DORMANT: DeploymentRow["status"][] = [...RESTING, "sleeping"];
const live = () => notInArray(deployments.status, DORMANT);
/** a runner is alive while its last heartbeat is younger than the lease */
const alive = (leaseMs: number) => sql`${runners.heartbeatAt} > now() - (${leaseMs} * interval '1 millisecond')`;
const expired = (leaseMs: number) => sql`${runners.heartbeatAt} <= now() - (${leaseMs} * interval '1 millisecond')`;

export type Registration = { ok: true } | { ok: false; heldBy: string };

/**
 * Registers this process as runner `id`, as instance `instance` (random per start). Another live
 * process holding the name (its heartbeat younger than the lease) keeps it: two processes with one
 * name would otherwise both run its deployments. Taking over a name raises the fencing number of
 * every deployment placed on it (docs/glossary.md#fencing).
 * `force`: alone (ROLES=all), where a second holder cannot exist.
 */
export async function registerRunner(
  db: Db,
  r: { id: string; instance: string; url: string; capacityMb: number; sandbox: SandboxInfo },
  o: { leaseMs: number; force?: boolean },
): Promise<Registration> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`switchboard:runner:${r.id}`}, 0))`);
    const [held] = await tx
      .select({ instance: runners.instance, fresh: sql<boolean>`${alive(o.leaseMs)}` })
      .from(runners)
      .where(eq(runners.id, r.id));
    if (held && held.instance !== r.instance && held.fresh && !o.force) return { ok: false, heldBy: held.instance } as const;
    const now = sql`now()`;
    await tx
      .insert(runners)
      .values({ ...r, draining: false })
      .onConflictDoUpdate({
        target: runners.id,
        set: {
          instance: r.instance,
          url: r.url,
          capacityMb: r.capacityMb,
          sandbox: r.sandbox,
          draining: false,
          startedAt: now,
          heartbeatAt: now,
        },
      });
    if (held && held.instance !== r.instance) {
      await tx
        .update(deployments)
        .set({ fence: sql`${deployments.fence} + 1` })
        .where(and(eq(deployments.runnerId, r.id), live()));
    }
    return { ok: true } as const;
  });
}

/** The runner is alive; false when its row is gone (presumed dead and removed) or another process took its name. */
export async function heartbeat(db: Db, id: string, instance: string): Promise<boolean> {
  const r = await db
    .update(runners)
    .set({ heartbeatAt: sql`now()` })
    .where(and(eq(runners.id, id), eq(runners.instance, instance)))
    .returning({ id: runners.id });
  return r.length > 0;
}

export async function setDraining(db: Db, id: string): Promise<void> {
  await db.update(runners).set({ draining: true }).where(eq(runners.id, id));
}

/** A clean stop removes the runner's own row (only its own instance's). */
export async function removeRunner(db: Db, id: string, instance: string): Promise<void> {
  await db.delete(runners).where(and(eq(runners.id, id), eq(runners.instance, instance)));
}

/** The sweep removes a dead runner, unless it came back meanwhile (a fresh heartbeat). */
export async function removeExpiredRunner(db: Db, id: string, leaseMs: number): Promise<void> {
  await db.delete(runners).where(and(eq(runners.id, id), expired(leaseMs)));
}

export async function findRunner(db: Db, id: string): Promise<RunnerRow | undefined> {
  const [r] = await db.select().from(runners).where(eq(runners.id, id));
  return r;
}

export async function liveRunners(db: Db, leaseMs: number): Promise<RunnerRow[]> {
  return db.select().from(runners).where(alive(leaseMs)).orderBy(runners.id);
}

/** The runners that stopped heartbeating: their deployments are to be moved. */
export async function expiredRunners(db: Db, leaseMs: number): Promise<RunnerRow[]> {
  return db.select().from(runners).where(expired(leaseMs));
}

/** Alone (ROLES=all): every live deployment is this runner's (rows from before placement existed, or from a renamed machine). */
export async function claimAll(db: Db, runnerId: string): Promise<void> {
  await db
    .update(deployments)
    .set({ runnerId, fence: sql`${deployments.fence} + 1` })
    .where(and(live(), sql`${deployments.runnerId} is distinct from ${runnerId}`));
}

/**
 * What a runner must run: the live deployments placed on it, each with its fencing number and
 * whether its owner is an admin; nothing at all unless this process (`instance`) still holds the
 * runner's name.
 */
export async function assignedTo(
  db: Db,
  runnerId: string,
  instance: string | null,
): Promise<(DeploymentRow & { ownerIsAdmin: boolean })[]> {
  // Alone (instance null) there is no second holder of the name to tell apart.
  const holder =
    instance === null
      ? sql`true`
      : sql`exists (select 1 from ${runners} where ${runners.id} = ${runnerId} and ${runners.instance} = ${instance})`;
  return db
    .select({ ...getTableColumns(deployments), ownerIsAdmin: sql<boolean>`coalesce(${profiles.isAdmin}, false)` })
    .from(deployments)
    .leftJoin(profiles, eq(profiles.id, deployments.userId))
    .where(and(eq(deployments.runnerId, runnerId), live(), holder))
    .orderBy(deployments.createdAt);
}

/** A plan that allows fewer: the deployment stops, kept with `reason`; the fencing number rises (docs/glossary.md#fencing). */
export async function stopPlaced(db: Db, id: string, reason: string): Promise<void> {
  await db
    .update(deployments)
    .set({
      status: "stopped",
      statusDetail: reason,
      pid: null,
      pidStart: null,
      runnerId: null,
      fence: sql`${deployments.fence} + 1`,
      updatedAt: new Date(),
    })
    .where(eq(deployments.id, id));
}

export interface Placed {
  runnerId: string;
  url: string;
  fence: number;
}

/**
 * Places a deployment (again): on the live runner with the most free reserved memory, never on
 * `exclude`. Placements are serialised cluster-wide by an advisory lock so two at once cannot
 * overfill a runner. `onlyIf` makes it conditional on the placement the caller saw (a runner
 * moving its own deployments, the sweeper moving a dead runner's). Without room anywhere the
 * deployment waits unplaced (runner_id null) with `waiting` as its detail, and undefined is returned.
 */
export async function place(
  db: Db,
  id: string,
  o: {
    memoryMb: number;
    leaseMs: number;
    exclude?: string;
    onlyIf?: { runnerId: string | null; fence: number };
    waiting: string;
    /** a runner to choose when it has room (where a sleeping deployment's volume is) */
    prefer?: string | null;
  },
): Promise<Placed | undefined | "gone"> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('switchboard:placement', 0))`);
    // A connection (a remote server) or a toolset holds no process: it reserves no memory, and needs none free.
    const [self] = (
      await tx.execute<{ remote: boolean }>(
        sql`select coalesce(source->>'kind', '') in ('remote', 'toolset') as remote from deployments where id = ${id}`,
      )
    ).rows;
    const need = self?.remote ? 0 : o.memoryMb;
    const r = await tx.execute<{ id: string; url: string }>(sql`
      select r.id, r.url
        from runners r
        left join deployments d on d.runner_id = r.id and d.status not in ('failed', 'stopped', 'sleeping') and d.id <> ${id}
                               and coalesce(d.source->>'kind', '') not in ('remote', 'toolset')
       where r.heartbeat_at > now() - (${o.leaseMs} * interval '1 millisecond')
         and not r.draining
         and r.id <> ${o.exclude ?? ""}
       group by r.id
      having r.capacity_mb - count(d.id) * ${o.memoryMb} >= ${need}
       order by coalesce((r.sandbox->>'complete')::boolean, false) desc, (r.id = ${o.prefer ?? ""}) desc,
                r.capacity_mb - count(d.id) * ${o.memoryMb} desc, r.id
       limit 1`);
    const chosen = r.rows[0];
    const cond = o.onlyIf
      ? and(
          eq(deployments.id, id),
          o.onlyIf.runnerId === null ? isNull(deployments.runnerId) : eq(deployments.runnerId, o.onlyIf.runnerId),
          eq(deployments.fence, o.onlyIf.fence),
        )
      : eq(deployments.id, id);
    const fields = chosen
      ? // Moved (or placed at last): it shows as queued until its new runner reports.
        {
          runnerId: chosen.id,
          fence: sql`${deployments.fence} + 1`,
          pid: null,
          pidStart: null,
          ...(o.onlyIf ? { status: "queued" as const, statusDetail: null } : {}),
          updatedAt: new Date(),
        }
      : {
          runnerId: null,
          fence: sql`${deployments.fence} + 1`,
          pid: null,
          pidStart: null,
          status: "queued" as const,
          statusDetail: o.waiting,
          updatedAt: new Date(),
        };
    const [u] = await tx.update(deployments).set(fields).where(cond).returning({ fence: deployments.fence });
    if (!u) return "gone";
    return chosen ? { runnerId: chosen.id, url: chosen.url, fence: u.fence } : undefined;
  });
}

/** Alone (ROLES=all): the one runner takes every deployment; the plan's limits are what bound it. */
export async function assignTo(db: Db, id: string, runnerId: string): Promise<boolean> {
  const r = await db
    .update(deployments)
    .set({ runnerId, fence: sql`${deployments.fence} + 1`, pid: null, pidStart: null, updatedAt: new Date() })
    .where(eq(deployments.id, id))
    .returning({ id: deployments.id });
  return r.length > 0;
}

/** Live deployments on `runnerId` (a dead or draining runner), with the placement each has now. */
export async function deploymentsOn(db: Db, runnerId: string): Promise<{ id: string; fence: number }[]> {
  return db
    .select({ id: deployments.id, fence: deployments.fence })
    .from(deployments)
    .where(and(eq(deployments.runnerId, runnerId), live()));
}

/** Live deployments waiting for a runner (none had room, or theirs was removed). */
export async function unplaced(db: Db): Promise<{ id: string; fence: number }[]> {
  return db
    .select({ id: deployments.id, fence: deployments.fence })
    .from(deployments)
    .where(and(isNull(deployments.runnerId), live()));
}

/** Live deployments placed on a runner that no longer has a row (removed while they pointed at it). */
export async function orphaned(db: Db): Promise<{ id: string; runnerId: string; fence: number }[]> {
  const rows = await db.execute<{ id: string; runner_id: string; fence: string }>(sql`
    select d.id, d.runner_id, d.fence from deployments d
     where d.runner_id is not null and d.status not in ('failed', 'stopped', 'sleeping')
       and not exists (select 1 from runners r where r.id = d.runner_id)`);
  return rows.rows.map((r) => ({ id: r.id, runnerId: r.runner_id, fence: Number(r.fence) }));
}

/** A runner's fenced write of its deployment's row (docs/glossary.md#fencing). False: the lease is lost (or the row gone). */
export async function fencedUpdate(
  db: Db,
  id: string,
  lease: { runnerId: string; fence: number },
  fields: Partial<Omit<DeploymentRow, "id" | "userId" | "createdAt">>,
  extra?: { restarts?: true },
): Promise<boolean> {
  const set: Record<string, unknown> = { ...fields, updatedAt: new Date() };
  if (extra?.restarts) set.restarts = sql`${deployments.restarts} + 1`;
  const r = await db
    .update(deployments)
    .set(set)
    .where(and(eq(deployments.id, id), eq(deployments.runnerId, lease.runnerId), eq(deployments.fence, lease.fence)))
    .returning({ id: deployments.id });
  return r.length > 0;
}
