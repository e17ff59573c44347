import { timingSafeEqual } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { deploymentAddresses, deployments, mcpServers, ownedServers, runners } from "../../db/schema.js";
import type { ServerKind } from "~/shared/deployments.js";
import type { DefinitionKind } from "~/shared/definitions.js";
import type { Definition, DefinitionReview } from "../deployments/definitions/definitions.js";

/** The user whose address `proxyId` is (deployment_addresses), deployed there now or not: a stopped one's URL is kept for its next deploy. */
export async function addressOwner(db: Db, proxyId: string): Promise<string | undefined> {
  const [r] = await db
    .select({ userId: deploymentAddresses.userId })
    .from(deploymentAddresses)
    .where(eq(deploymentAddresses.proxyId, proxyId));
  return r?.userId;
}

export interface GatewayTarget {
  id: string;
  proxyId: string;
  userId: string;
  serverKind: ServerKind;
  serverRef: string;
  /** where the runner holding it takes forwarded traffic (null while it waits for a runner, or sleeps) */
  runnerUrl: string | null;
  /** its status when looked up (a sleeping one is woken by the request) */
  status: string;
  /** the tools its owner hid: left out of tools/list, refused in tools/call */
  hiddenTools: ReadonlySet<string>;
  /** its owner's pinned definitions: changed or new ones are withheld until approved */
  review: DefinitionReview;
}

/**
 * The deployments' pinned definitions, as features/deployments keeps them (the only writer of
 * pins): the gateway reads an owner's review and reports what a listing showed; the platform
 * wires it to deployments/definitions/definitions-repo.ts.
 */
export interface PinsPort {
  review(owner: PinOwner): Promise<DefinitionReview>;
  /** a listing of one kind as it went through the gateway; true when that changed what is recorded */
  record(owner: PinOwner, kind: DefinitionKind, listed: readonly Definition[], complete: boolean): Promise<boolean>;
}

/** Whose pins: the deployment's owner's, for that server. */
export interface PinOwner {
  userId: string;
  serverKind: ServerKind;
  serverRef: string;
}

export async function findDeploymentByProxy(db: Db, pins: Pick<PinsPort, "review">, proxyId: string): Promise<GatewayTarget | undefined> {
  const [r] = await db
    .select({
      id: deployments.id,
      proxyId: deployments.proxyId,
      userId: deployments.userId,
      serverKind: deployments.serverKind,
      serverRef: deployments.serverRef,
      runnerUrl: runners.url,
      status: deployments.status,
      hiddenTools: deployments.hiddenTools,
    })
    .from(deployments)
    .leftJoin(runners, eq(runners.id, deployments.runnerId))
    .where(eq(deployments.proxyId, proxyId));
  if (!r) return undefined;
  const review = await pins.review({ userId: r.userId, serverKind: r.serverKind as ServerKind, serverRef: r.serverRef });
  return { ...r, serverKind: r.serverKind as ServerKind, hiddenTools: new Set(r.hiddenTools), review };
}

/** The name a deployment's server goes by (its display name, or the catalogue entry's name), or undefined for an unknown proxy id. */
export async function findResourceName(db: Db, proxyId: string): Promise<string | undefined> {
  const [r] = await db
    .select({ owned: ownedServers.displayName, catalog: mcpServers.name, ref: deployments.serverRef })
    .from(deployments)
    .leftJoin(ownedServers, and(eq(deployments.serverKind, "owned"), eq(ownedServers.qualifiedName, deployments.serverRef)))
    .leftJoin(mcpServers, and(eq(deployments.serverKind, "catalog"), eq(mcpServers.id, deployments.serverRef)))
    .where(eq(deployments.proxyId, proxyId));
  return r ? (r.owned ?? r.catalog ?? r.ref) : undefined;
}

/** Of these sign-in session ids, the ones still signed in (not signed out, not expired). */
export async function liveSignIns(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.execute<{ id: string }>(
    sql`select id from "session" where id = any(${sql.param([...ids])}::text[]) and expires_at > now()`,
  );
  return new Set(rows.rows.map((r) => r.id));
}

export interface UsageCount {
  kind: ServerKind;
  ref: string;
  /** the deployment's owner (who used it, for popularity) */
  userId?: string;
  n: number;
}

/** The days of the popularity window: today and the 29 before it. */
const RECENT = sql`date_trunc('day', now()) - interval '29 days'`;

/**
 * Adds a batch of forwarded-request counts in one transaction (all or nothing): 'Total Usage'
 * (exact requests), and who used which catalogue entry on which day. An entry's public
 * popularity (recent_users: distinct users over 30 days) changes only when someone new used it:
 * one user calling in a loop moves it by one at most.
 */
export async function addUsage(db: Db, counts: ReadonlyMap<string, UsageCount>): Promise<boolean> {
  if (counts.size === 0) return false;
  // Totals per server, always in the same order: several gateways flushing at once then lock the
  // rows in one order and never deadlock (a deadlock aborts a flush, which keeps its counts).
  const totals = new Map<string, { kind: ServerKind; ref: string; n: number }>();
  for (const c of counts.values()) {
    const key = `${c.kind}\u0000${c.ref}`;
    const t = totals.get(key);
    if (t) t.n += c.n;
    else totals.set(key, { kind: c.kind, ref: c.ref, n: c.n });
  }
  const sorted = [...totals.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.ref.localeCompare(b.ref));
  const people = [...counts.values()]
    .filter((c) => c.kind === "catalog" && c.userId)
    .sort((a, b) => a.ref.localeCompare(b.ref) || a.userId!.localeCompare(b.userId!));
  return db.transaction(async (tx) => {
    for (const { kind, ref, n } of sorted) {
      if (kind === "catalog")
        await tx
          .update(mcpServers)
          .set({ useCount: sql`${mcpServers.useCount} + ${n}` })
          .where(eq(mcpServers.id, ref));
      else if (kind === "owned")
        await tx
          .update(ownedServers)
          .set({ useCount: sql`${ownedServers.useCount} + ${n}` })
          .where(eq(ownedServers.qualifiedName, ref));
    }
    if (people.length === 0) return false;
    const r = await tx.execute<{ server_ref: string; fresh: boolean }>(sql`
      insert into usage_daily (server_kind, server_ref, user_id, day, requests)
      select 'catalog', u.ref, u.uid, date_trunc('day', now()), u.n
      from unnest(${sql.param(people.map((p) => p.ref))}::text[], ${sql.param(people.map((p) => p.userId!))}::text[], ${sql.param(people.map((p) => p.n))}::bigint[]) as u(ref, uid, n)
      on conflict (server_kind, server_ref, user_id, day) do update set requests = usage_daily.requests + excluded.requests
      returning server_ref, (xmax = 0) as fresh`);
    const fresh = [...new Set(r.rows.filter((x) => x.fresh).map((x) => x.server_ref))].sort();
    if (fresh.length) await tx.execute(sql`${recountRecentUsers} where m.id = any(${sql.param(fresh)}::text[])`);
    return fresh.length > 0;
  });
}

const recountRecentUsers = sql`update mcp_servers m set recent_users = (
  select count(distinct d.user_id) from usage_daily d where d.server_kind = 'catalog' and d.server_ref = m.id and d.day >= ${RECENT})`;

/** The window slides: yesterday's users fall out of it in time. Days past it are deleted. */
export async function slidePopularity(db: Db): Promise<boolean> {
  await db.execute(sql`delete from usage_daily where day < ${RECENT} - interval '5 days'`);
  // Cursors page a listing as of its start for an hour (catalog/search-repo.ts): older history goes.
  await db.execute(sql`delete from popularity_changes where changed_at < now() - interval '2 hours'`);
  const r = await db.execute(sql`${recountRecentUsers} where m.recent_users > 0 and m.recent_users <> (
    select count(distinct d.user_id) from usage_daily d where d.server_kind = 'catalog' and d.server_ref = m.id and d.day >= ${RECENT})`);
  return (r.rowCount ?? 0) > 0;
}

/**
 * The toolset a toolset's credential names (features/api-keys/toolset-token.ts), if the credential
 * is its current one and it is live: its owner and the deployments it may reach (its members).
 */
export async function toolsetGrant(db: Db, id: string, tokenHash: string): Promise<{ userId: string; members: string[] } | undefined> {
  const r = await db.execute<{ user_id: string; source: { kind?: string; token_hash?: string; members?: { deployment_id: string }[] } }>(
    sql`select user_id, source from deployments where id = ${id} and status not in ('failed', 'stopped')`,
  );
  const row = r.rows[0];
  const stored = row?.source.kind === "toolset" ? row.source.token_hash : undefined;
  if (!row || typeof stored !== "string" || stored.length !== tokenHash.length) return undefined;
  if (!timingSafeEqual(Buffer.from(stored), Buffer.from(tokenHash))) return undefined;
  return { userId: row.user_id, members: (row.source.members ?? []).map((m) => m.deployment_id) };
}
