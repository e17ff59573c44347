import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { deployments, mcpServers, ownedServers, runners } from "../../db/schema.js";
import type { ServerKind } from "../../../shared/deployments.js";
import type { DefinitionReview } from "../deployments/definitions.js";
import { loadReview } from "../deployments/definitions-repo.js";

export interface GatewayTarget {
  id: string;
  proxyId: string;
  userId: string;
  serverKind: ServerKind;
  serverRef: string;
  /** where the runner holding it takes forwarded traffic (null while it waits for a runner) */
  runnerUrl: string | null;
  /** the tools its owner hid: left out of tools/list, refused in tools/call */
  hiddenTools: ReadonlySet<string>;
  /** its owner's pinned definitions: changed or new ones are withheld until approved */
  review: DefinitionReview;
}

export async function findDeploymentByProxy(db: Db, proxyId: string): Promise<GatewayTarget | undefined> {
  const [r] = await db
    .select({ id: deployments.id, proxyId: deployments.proxyId, userId: deployments.userId, serverKind: deployments.serverKind, serverRef: deployments.serverRef, runnerUrl: runners.url, hiddenTools: deployments.hiddenTools })
    .from(deployments)
    .leftJoin(runners, eq(runners.id, deployments.runnerId))
    .where(eq(deployments.proxyId, proxyId));
  if (!r) return undefined;
  const review = await loadReview(db, r);
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
  const rows = await db.execute<{ id: string }>(sql`select id from "session" where id = any(${sql.param([...ids])}::text[]) and expires_at > now()`);
  return new Set(rows.rows.map((r) => r.id));
}

/** Adds a batch of forwarded-request counts to 'Total Usage' in one transaction: all or nothing. */
export async function addUsage(db: Db, counts: ReadonlyMap<string, { kind: ServerKind; ref: string; n: number }>): Promise<void> {
  if (counts.size === 0) return;
  // Always in the same order: several gateways flushing at once then lock the rows in one order
  // and never deadlock (a deadlock aborts a flush, which keeps its counts for a later one).
  const sorted = [...counts.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.ref.localeCompare(b.ref));
  await db.transaction(async (tx) => {
    for (const { kind, ref, n } of sorted) {
      if (kind === "catalog") await tx.update(mcpServers).set({ useCount: sql`${mcpServers.useCount} + ${n}` }).where(eq(mcpServers.id, ref));
      else await tx.update(ownedServers).set({ useCount: sql`${ownedServers.useCount} + ${n}` }).where(eq(ownedServers.qualifiedName, ref));
    }
  });
}
