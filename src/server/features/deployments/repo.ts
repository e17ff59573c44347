import { and, count, desc, eq, inArray, ne, notInArray, sql } from "drizzle-orm";
import type { DeploymentStatus, ServerKind } from "~/shared/deployments.js";
import type { Db } from "../../db/client.js";
import { deployActions, deploymentAddresses, deployments } from "../../db/schema.js";
import { prunePins } from "./definitions/definitions-repo.js";
import type { HostingAllowance } from "~/shared/billing.js";
import { awakeSlot, type Slept } from "./sleep/sleep-repo.js";
import { PLATFORM_USER_ID } from "./definitions/listings.js";
import type { DeploymentResources } from "./resources.js";

export type { DeploymentResources } from "./resources.js";
export { saveCapabilities, type Capabilities } from "./definitions/listings.js";

export type DeploymentRow = typeof deployments.$inferSelect;
export type { ServerKind };
export interface ServerRef {
  kind: ServerKind;
  ref: string;
}

/** Deployments that hold a slot of the plan: not failed, not stopped by a plan change. */
export const RESTING: DeploymentStatus[] = ["failed", "stopped"];
const live = () => notInArray(deployments.status, RESTING);
/** What a plan's running limit counts: live deployments of hosted code (a connection or a toolset runs nothing of ours, docs/product.md#plans). */
const counted = () => and(live(), sql`coalesce(${deployments.source}->>'kind', '') not in ('remote', 'toolset')`);

const refIs = (s: ServerRef) => and(eq(deployments.serverKind, s.kind), eq(deployments.serverRef, s.ref));

export async function findDeployment(db: Db, id: string): Promise<DeploymentRow | undefined> {
  const [r] = await db.select().from(deployments).where(eq(deployments.id, id));
  return r;
}

export async function updateHiddenTools(db: Db, id: string, hidden: string[]): Promise<void> {
  await db.update(deployments).set({ hiddenTools: hidden, updatedAt: new Date() }).where(eq(deployments.id, id));
}

export async function listUserDeployments(db: Db, userId: string, server?: ServerRef): Promise<DeploymentRow[]> {
  return db
    .select()
    .from(deployments)
    .where(server ? and(eq(deployments.userId, userId), refIs(server)) : eq(deployments.userId, userId))
    .orderBy(deployments.createdAt);
}

/** The deployments of several owners (a person's own and their organisations'), oldest first. */
export async function listOwnersDeployments(db: Db, ownerIds: string[]): Promise<DeploymentRow[]> {
  return db.select().from(deployments).where(inArray(deployments.userId, ownerIds)).orderBy(deployments.createdAt);
}

/** A user's deployments that hold a slot, newest first. */
export async function listLiveDeployments(db: Db, userId: string): Promise<DeploymentRow[]> {
  return db
    .select()
    .from(deployments)
    .where(and(eq(deployments.userId, userId), counted()))
    .orderBy(desc(deployments.createdAt));
}

/**
 * Users keeping more deployments than `maxKept` or with more than `maxRunning` awake: candidates
 * for a plan check. Never the platform's account: its 'Works here' checks run side by side and
 * each goes once it listed; a plan would stop one mid-check and record it as failing.
 */
export async function usersWithLiveDeployments(db: Db, limits: { maxRunning: number; maxKept: number }): Promise<string[]> {
  const rows = await db
    .select({ userId: deployments.userId })
    .from(deployments)
    .where(and(counted(), ne(deployments.userId, PLATFORM_USER_ID)))
    .groupBy(deployments.userId)
    .having(sql`count(*) > ${limits.maxKept} or count(*) filter (where ${deployments.status} <> 'sleeping') > ${limits.maxRunning}`);
  return rows.map((r) => r.userId);
}

/** Whose address `proxyId` is, and for which server, with or without a deployment there now (the gateway says a stopped one is stopped). */
export async function addressOf(db: Db, proxyId: string): Promise<{ userId: string; serverKind: string; serverRef: string } | undefined> {
  const [r] = await db
    .select({ userId: deploymentAddresses.userId, serverKind: deploymentAddresses.serverKind, serverRef: deploymentAddresses.serverRef })
    .from(deploymentAddresses)
    .where(eq(deploymentAddresses.proxyId, proxyId));
  return r;
}

/** The deployment's row and what hangs off it go together: its OAuth resource, every token granted for it, its pins as prunePins says. */
export async function deleteDeployment(db: Db, id: string, resources: Pick<DeploymentResources, "gone">): Promise<boolean> {
  return db.transaction(async (tx) => {
    await resources.gone(tx, id);
    const [gone] = await tx
      .delete(deployments)
      .where(eq(deployments.id, id))
      .returning({ userId: deployments.userId, serverKind: deployments.serverKind, serverRef: deployments.serverRef });
    if (gone) await prunePins(tx, gone);
    return gone !== undefined;
  });
}

/** A user's deployments awake (a running slot) and kept (asleep too): what the plan counts. */
export async function planUse(db: Db, userId: string): Promise<{ live: number; kept: number }> {
  const r = await db.execute<{ live: number; kept: number }>(sql`
    select (select count(*)::int from deployments where user_id = ${userId} and status not in ('failed', 'stopped', 'sleeping')
                                                   and coalesce(source->>'kind', '') not in ('remote', 'toolset')) as live,
           (select count(*)::int from deployments where user_id = ${userId} and status not in ('failed', 'stopped')
                                                   and coalesce(source->>'kind', '') not in ('remote', 'toolset')) as kept`);
  return r.rows[0]!;
}

/** What a plan allows on this platform (shared/billing.ts planLimits). */
export type PlanLimits = HostingAllowance;

export type ReserveResult =
  | { ok: true; row: DeploymentRow; replaced?: string; slept: Slept[] }
  | { ok: false; reason: "running_limit" | "kept_limit" | "already_deployed" | "connection_limit" };

/** A connection: no plan's limit counts it, at most `maxConnections` per user do (CONNECTIONS_PER_USER). */
/** A connection's or a toolset's own limit (how many of that kind a user may have); no deploy action records them. */
export type ConnectionLimit = { maxConnections: number } | { maxToolsets: number };

/**
 * Checks the plan's limits and records the deploy in one transaction, serialised per user by an
 * advisory lock, so parallel requests can never slip past the limits together. A failed or
 * stopped deployment of the same server is replaced; a live one is refused. The user's address
 * for this server is kept (deployment_addresses): a server deployed again, after a Stop, takes the
 * proxy id it had, so its URL does not change; the first deploy records `row.proxyId` as it. The
 * deployment's URL (from the proxy id it takes) is recorded as its OAuth resource in the same
 * transaction, and a replaced one's goes, with its tokens (`resources`).
 */
export async function reserveDeployment(
  db: Db,
  /** a plan's for a deploy; a connection's own (no deploy action records it) */
  limits: PlanLimits | ConnectionLimit,
  row: Omit<typeof deployments.$inferInsert, "status">,
  resources: DeploymentResources,
): Promise<ReserveResult> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`deploy:${row.userId}`}, 0))`);
    const server = { kind: row.serverKind as ServerKind, ref: row.serverRef };
    const [kept] = await tx
      .select({ proxyId: deploymentAddresses.proxyId })
      .from(deploymentAddresses)
      .where(
        and(
          eq(deploymentAddresses.userId, row.userId),
          eq(deploymentAddresses.serverKind, row.serverKind),
          eq(deploymentAddresses.serverRef, row.serverRef),
        ),
      );
    const proxyId = kept?.proxyId ?? row.proxyId;
    const [existing] = await tx
      .select()
      .from(deployments)
      .where(and(eq(deployments.userId, row.userId), refIs(server)));
    if (existing && !RESTING.includes(existing.status)) return { ok: false, reason: "already_deployed" } as const;
    const reserve = () => insertReserved(tx, { ...row, proxyId }, existing, resources, !kept);
    if ("maxConnections" in limits || "maxToolsets" in limits) {
      const [kind, max] = "maxConnections" in limits ? ["remote", limits.maxConnections] : ["toolset", limits.maxToolsets];
      // Counted under the same lock: parallel requests cannot pass the limit together.
      const [held] = await tx
        .select({ n: count() })
        .from(deployments)
        .where(and(eq(deployments.userId, row.userId), sql`${deployments.source}->>'kind' = ${kind}`));
      const replacing = existing && (existing.source as { kind?: string }).kind === kind ? 1 : 0;
      if ((held?.n ?? 0) - replacing >= max) return { ok: false, reason: "connection_limit" } as const;
      return reserve();
    }
    // Kept (asleep or awake) within the plan; without sleeping, that is its running limit. A plan
    // counts what is kept and what is awake, never how often one deploys.
    const [held] = await tx
      .select({ n: count() })
      .from(deployments)
      .where(and(eq(deployments.userId, row.userId), counted()));
    if ((held?.n ?? 0) >= limits.maxKept) return { ok: false, reason: limits.sleep ? "kept_limit" : "running_limit" } as const;
    // It starts awake: room among the awake ones, an idle one put to sleep if need be.
    const slot = await awakeSlot(tx, row.userId, limits.maxRunning, row.id ?? "", limits.sleep, row.serverRef);
    if (!slot.ok) return { ok: false, reason: "running_limit" } as const;
    // The history 'Total Deployments' counts.
    await tx.insert(deployActions).values({ userId: row.userId, serverKind: row.serverKind, serverRef: row.serverRef });
    const reserved = await reserve();
    return reserved.ok ? { ...reserved, slept: slot.slept } : reserved;
  });
}

/** The reserved row, in place of a failed or stopped one of the same server (whose OAuth resource goes with it). */
async function insertReserved(
  tx: Parameters<Parameters<Db["transaction"]>[0]>[0],
  row: Omit<typeof deployments.$inferInsert, "status">,
  existing: DeploymentRow | undefined,
  resources: DeploymentResources,
  /** its first deploy: the proxy id becomes the user's address for this server */
  firstAddress: boolean,
): Promise<ReserveResult> {
  if (existing) {
    await resources.gone(tx, existing.id);
    await tx.delete(deployments).where(eq(deployments.id, existing.id));
  }
  if (firstAddress)
    await tx
      .insert(deploymentAddresses)
      .values({ userId: row.userId, serverKind: row.serverKind, serverRef: row.serverRef, proxyId: row.proxyId });
  const [inserted] = await tx
    .insert(deployments)
    // A failed deployment deployed again keeps the tools its owner chose to hide.
    .values({ ...row, status: "queued", ...(existing ? { hiddenTools: existing.hiddenTools } : {}) })
    .returning();
  await resources.made(tx, inserted!.id, resources.url(inserted!.proxyId));
  return { ok: true, row: inserted!, replaced: existing?.id, slept: [] };
}

export type RestartResult =
  { ok: true; row: DeploymentRow; runnerId: string | null; slept: Slept[] } | { ok: false; reason: "running_limit" | "kept_limit" };

/**
 * Restart in place (the owner's Restart or Edit keys): the same row, so its URL, OAuth grants,
 * pins, tool selection and request log stay; new keys (`secrets`) or a connection's new OAuth grant when given. It is not a deploy:
 * no deploy action is recorded. A failed or stopped one takes a running slot again, so the plan's
 * running limit is checked under the same per-user lock as a deploy. The placement is cleared and
 * its fencing number raised (docs/glossary.md#fencing), so the runner that held it stops it;
 * `runnerId` is where it ran (to stop it there at once).
 */
export async function restartInPlace(
  db: Db,
  id: string,
  limits: Pick<PlanLimits, "maxRunning" | "maxKept" | "sleep">,
  sealed: { secrets?: string; upstreamGrant?: string; source?: unknown } = {},
): Promise<RestartResult | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(deployments).where(eq(deployments.id, id));
    if (!row) return undefined;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`deploy:${row.userId}`}, 0))`);
    let slept: Slept[] = [];
    const hosted = !["remote", "toolset"].includes((row.source as { kind?: string }).kind ?? "");
    // A failed or stopped one is kept again; it and a sleeping one start awake.
    if (hosted && RESTING.includes(row.status)) {
      const [kept] = await tx
        .select({ n: count() })
        .from(deployments)
        .where(and(eq(deployments.userId, row.userId), counted()));
      if ((kept?.n ?? 0) >= limits.maxKept) return { ok: false, reason: limits.sleep ? "kept_limit" : "running_limit" } as const;
    }
    if (hosted && (RESTING.includes(row.status) || row.status === "sleeping")) {
      const slot = await awakeSlot(tx, row.userId, limits.maxRunning, row.id, limits.sleep, row.serverRef);
      if (!slot.ok) return { ok: false, reason: "running_limit" } as const;
      slept = slot.slept;
    }
    const [updated] = await tx
      .update(deployments)
      .set({
        ...sealed,
        status: "queued",
        statusDetail: null,
        exitCode: null,
        restarts: 0,
        pid: null,
        pidStart: null,
        runnerId: null,
        fence: sql`${deployments.fence} + 1`,
        updatedAt: new Date(),
      })
      .where(eq(deployments.id, id))
      .returning();
    return { ok: true, row: updated!, runnerId: row.runnerId, slept } as const;
  });
}

/**
 * A platform check's deployment (checks.ts): one per entry at a time, a finished one's row
 * replaced; never a deploy action (checks are nobody's usage, and no plan limits them).
 */
export async function reserveCheck(db: Db, row: Omit<typeof deployments.$inferInsert, "status">): Promise<DeploymentRow | undefined> {
  try {
    return await db.transaction(async (tx) => {
      // The platform's own account, made at its first check: no password, no profile, never signed
      // in. Its e-mail has no "@", so no sign-up can take it first.
      await tx.execute(
        sql`insert into "user" (id, name, email, email_verified) values (${row.userId}, 'Switchboard checks', ${row.userId}, true) on conflict (id) do nothing`,
      );
      const [existing] = await tx
        .select()
        .from(deployments)
        .where(
          and(eq(deployments.userId, row.userId), eq(deployments.serverKind, row.serverKind), eq(deployments.serverRef, row.serverRef)),
        );
      if (existing && !RESTING.includes(existing.status)) return undefined;
      if (existing) await tx.delete(deployments).where(eq(deployments.id, existing.id));
      const [inserted] = await tx
        .insert(deployments)
        .values({ ...row, status: "queued" })
        .returning();
      return inserted;
    });
  } catch (e) {
    // Two checks of one entry at once: the second finds the first's row (one per entry and account).
    if ((e as { cause?: { code?: string } }).cause?.code === "23505") return undefined;
    throw e;
  }
}

/** The proxy ids of a user's deployments among `ids` (a toolset's members that still exist). */
export async function proxiesOf(db: Db, userId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: deployments.id, proxyId: deployments.proxyId })
    .from(deployments)
    .where(and(eq(deployments.userId, userId), inArray(deployments.id, ids)));
  return new Map(rows.map((r) => [r.id, r.proxyId]));
}
