import { and, desc, eq, isNull, lt, notExists, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.js";
import { catalogListings, deploymentListings, deployments, mcpServers, serverCapabilities } from "../../../db/schema.js";
import { CHECK_OUTCOMES, type CheckOutcome, type CheckResult } from "~/shared/catalog.js";
import type { ServerKind } from "~/shared/deployments.js";
import { invalidateCatalog } from "../../catalog/cache.js";
import { definitionOf, jsonbSafe } from "./definitions.js";

type ServerRef = { kind: ServerKind; ref: string };
type DeploymentRow = typeof deployments.$inferSelect;

// What servers list, and who may see it (docs/product.md#trusted-listings):
// - every deployment's own listing (deployment_listings): its owner's view;
// - an owned server's listing (server_capabilities): its owner's deployment's, public like the
//   rest of its page (only its owner can deploy it);
// - a catalogue entry's public listing (catalog_listings.approved): only one an admin approved,
//   taken from a check the platform ran itself (candidate), or the check's own listing for the
//   platform's own demo entries (trustedSeed). No user's deployment writes it.
// This module is the one writer of these tables.

/** The platform's own account (made at its first check, repo.ts reserveCheck): it runs catalogue checks and never signs in. */
export const PLATFORM_USER_ID = "switchboard-platform";

export interface Capabilities {
  tools: unknown[];
  prompts: unknown[];
  resources: unknown[];
}

const safe = (c: Capabilities): Capabilities => ({
  tools: jsonbSafe(c.tools) as unknown[],
  prompts: jsonbSafe(c.prompts) as unknown[],
  resources: jsonbSafe(c.resources) as unknown[],
});

/** Two listings define the same tools, prompts and templates (their `_meta` aside). */
export function sameListing(a: Capabilities | null | undefined, b: Capabilities | null | undefined): boolean {
  if (!a || !b) return false;
  const key = (items: unknown[]) => JSON.stringify(items.map((i) => definitionOf(i)?.hash ?? "").sort());
  return key(a.tools) === key(b.tools) && key(a.prompts) === key(b.prompts) && key(a.resources) === key(b.resources);
}

/**
 * A deployment started and listed what it offers: kept as its own listing; an owned server's
 * page shows it; a platform check's listing becomes its catalogue entry's candidate (public only
 * once an admin approves it). Any other deployment of a catalogue entry changes nothing public.
 */
export async function saveListing(
  db: Db,
  row: Pick<DeploymentRow, "id" | "userId" | "serverKind" | "serverRef">,
  caps: Capabilities,
): Promise<void> {
  const c = safe(caps);
  const now = new Date();
  await db.transaction(async (tx) => {
    await tx
      .insert(deploymentListings)
      .values({ deploymentId: row.id, ...c, listedAt: now })
      .onConflictDoUpdate({ target: deploymentListings.deploymentId, set: { ...c, listedAt: now } });
    if (row.serverKind === "owned") {
      await tx
        .insert(serverCapabilities)
        .values({ serverKind: "owned", serverRef: row.serverRef, ...c, listedAt: now })
        .onConflictDoUpdate({ target: [serverCapabilities.serverKind, serverCapabilities.serverRef], set: { ...c, listedAt: now } });
    } else if (row.userId === PLATFORM_USER_ID) {
      await saveCandidate(tx, row.serverRef, c, now);
    }
  });
  // The directory's 'Works here' filter reads the entry's outcome.
  if (row.serverKind === "catalog" && row.userId === PLATFORM_USER_ID) await invalidateCatalog(db);
}

/**
 * A listing from a source its server's page may show: an owned server's (its owner's deployment),
 * or a catalogue entry's platform check (its candidate, public once an admin approves it).
 */
export async function saveCapabilities(db: Db, server: ServerRef, caps: Capabilities): Promise<void> {
  const c = safe(caps);
  const now = new Date();
  if (server.kind === "owned") {
    await db
      .insert(serverCapabilities)
      .values({ serverKind: "owned", serverRef: server.ref, ...c, listedAt: now })
      .onConflictDoUpdate({ target: [serverCapabilities.serverKind, serverCapabilities.serverRef], set: { ...c, listedAt: now } });
    return;
  }
  await db.transaction((tx) => saveCandidate(tx, server.ref, c, now));
  await invalidateCatalog(db);
}

async function saveCandidate(tx: Pick<Db, "select" | "insert" | "update">, serverId: string, c: Capabilities, now: Date): Promise<void> {
  const [current] = await tx
    .select({ approved: catalogListings.approved, status: catalogListings.checkStatus })
    .from(catalogListings)
    .where(eq(catalogListings.serverId, serverId))
    .for("update");
  // Only the check under way speaks for the entry: one its entry's package changed under (the
  // registry sync forgot it, registry-repo.ts forgetCheck) ran something else, and says nothing.
  if (current?.status !== "checking") return;
  // The platform's own seed is trusted: its check's listing is public at once (trustedSeed).
  const trusted = await isTrustedSeed(tx, serverId);
  const candidate = trusted || sameListing(current?.approved as Capabilities | null, c) ? null : c;
  const values = {
    ...(trusted ? { approved: c, approvedAt: now } : {}),
    candidate,
    candidateAt: candidate ? now : null,
    checkStatus: null,
    checkDetail: null,
    checkedAt: now,
    // It started and listed: it works here, with this many tools (public as a count; the tools once approved).
    outcome: "works",
    outcomeTools: c.tools.length,
    outcomeDetail: null,
  };
  await tx
    .insert(catalogListings)
    .values({ serverId, ...values })
    .onConflictDoUpdate({ target: catalogListings.serverId, set: values });
  await tx.update(mcpServers).set({ checkOutcome: "works" }).where(eq(mcpServers.id, serverId));
}

/**
 * A catalogue entry of the platform's own demo catalogue that still runs the command the seed gave
 * it (mcp_servers.seed_command, written only by seedCatalogIfEmpty): its checks' listings need no
 * admin. A submitted or imported entry never is one; an edit of its command ends it.
 */
export function trustedSeed(e: { seedCommand: string | null; npxCommand: string | null }): boolean {
  return e.seedCommand !== null && e.seedCommand === e.npxCommand;
}

async function isTrustedSeed(tx: Pick<Db, "select">, serverId: string): Promise<boolean> {
  const [e] = await tx
    .select({ seedCommand: mcpServers.seedCommand, npxCommand: mcpServers.npxCommand })
    .from(mcpServers)
    .where(eq(mcpServers.id, serverId));
  return e ? trustedSeed(e) : false;
}

/** What a deployment listed at its last start (its owner's view), or undefined before it has. */
export async function deploymentListing(db: Db, deploymentId: string): Promise<(Capabilities & { listedAt: Date }) | undefined> {
  const [r] = await db.select().from(deploymentListings).where(eq(deploymentListings.deploymentId, deploymentId));
  return r
    ? { tools: r.tools as unknown[], prompts: r.prompts as unknown[], resources: r.resources as unknown[], listedAt: r.listedAt }
    : undefined;
}

/** The listing other people see on a server's page: a catalogue entry's approved one, an owned server's own. */
export async function publicListing(db: Db, server: ServerRef): Promise<(Capabilities & { listedAt: Date }) | undefined> {
  return (await publicFacts(db, server)).listing;
}

/**
 * What a server's page shows of it to everyone, in one read: its public listing and, for a
 * catalogue entry, how the platform's last finished check went (null: never checked).
 */
export async function publicFacts(
  db: Db,
  server: ServerRef,
): Promise<{ listing: (Capabilities & { listedAt: Date }) | undefined; check: CheckResult | null }> {
  if (server.kind === "catalog") {
    const [r] = await db
      .select({
        approved: catalogListings.approved,
        at: catalogListings.approvedAt,
        outcome: catalogListings.outcome,
        tools: catalogListings.outcomeTools,
        detail: catalogListings.outcomeDetail,
        checkedAt: catalogListings.checkedAt,
      })
      .from(catalogListings)
      .where(eq(catalogListings.serverId, server.ref));
    return catalogFacts(r);
  }
  return { listing: await ownedListing(db, server), check: null };
}

/** A catalogue entry's public facts from its catalog_listings row (none: never listed, never checked). */
export function catalogFacts(
  r:
    | { approved: unknown; at: Date | null; outcome: string | null; tools: number | null; detail: string | null; checkedAt: Date | null }
    | undefined,
): { listing: (Capabilities & { listedAt: Date }) | undefined; check: CheckResult | null } {
  const a = r?.approved as Capabilities | null | undefined;
  const known = r?.outcome && r.checkedAt && (CHECK_OUTCOMES as readonly string[]).includes(r.outcome);
  return {
    listing: a && r?.at ? { ...a, listedAt: r.at } : undefined,
    check: known ? { outcome: r.outcome as CheckOutcome, tools: r.tools, detail: r.detail, checked_at: r.checkedAt!.toISOString() } : null,
  };
}

async function ownedListing(db: Db, server: ServerRef): Promise<(Capabilities & { listedAt: Date }) | undefined> {
  const [r] = await db
    .select()
    .from(serverCapabilities)
    .where(and(eq(serverCapabilities.serverKind, "owned"), eq(serverCapabilities.serverRef, server.ref)));
  return r
    ? { tools: r.tools as unknown[], prompts: r.prompts as unknown[], resources: r.resources as unknown[], listedAt: r.listedAt }
    : undefined;
}

/** An admin approves the entry's checked listing: it becomes public. False when there was none to approve. */
export async function approveCandidate(db: Db, serverId: string): Promise<boolean> {
  const r = await db
    .update(catalogListings)
    .set({ approved: sql`${catalogListings.candidate}`, approvedAt: sql`now()`, candidate: null, candidateAt: null })
    .where(and(eq(catalogListings.serverId, serverId), sql`${catalogListings.candidate} is not null`));
  return (r.rowCount ?? 0) > 0;
}

/**
 * A check of the entry began (or ended without a listing: 'failed', with why, and what that means
 * for whoever would deploy it: it needs real keys, fails, or cannot run here).
 */
export async function setCheckStatus(
  db: Db,
  serverId: string,
  status: "checking" | "failed" | null,
  detail: string | null = null,
  outcome?: Exclude<CheckOutcome, "works">,
): Promise<void> {
  const values = {
    checkStatus: status,
    checkDetail: detail,
    ...(status === "checking" ? { checkStartedAt: new Date() } : { checkedAt: new Date() }),
    ...(outcome ? { outcome, outcomeTools: null, outcomeDetail: detail } : {}),
  };
  await db.transaction(async (tx) => {
    await tx
      .insert(catalogListings)
      .values({ serverId, ...values })
      .onConflictDoUpdate({ target: catalogListings.serverId, set: values });
    if (outcome) await tx.update(mcpServers).set({ checkOutcome: outcome }).where(eq(mcpServers.id, serverId));
  });
  if (outcome) await invalidateCatalog(db);
}

export interface CheckState {
  status: "checking" | "failed" | null;
  detail: string | null;
  checkedAt: Date | null;
}

export async function checkState(db: Db, serverId: string): Promise<CheckState> {
  const [r] = await db
    .select({ status: catalogListings.checkStatus, detail: catalogListings.checkDetail, at: catalogListings.checkedAt })
    .from(catalogListings)
    .where(eq(catalogListings.serverId, serverId));
  return { status: (r?.status as CheckState["status"]) ?? null, detail: r?.detail ?? null, checkedAt: r?.at ?? null };
}

/**
 * Entries still 'checking' since before `startedBefore` with no check deployment: remote checks
 * (they have none) whose process went away mid-probe.
 */
export async function staleRemoteChecks(db: Db, startedBefore: Date): Promise<string[]> {
  const rows = await db
    .select({ id: catalogListings.serverId })
    .from(catalogListings)
    .where(
      and(
        eq(catalogListings.checkStatus, "checking"),
        or(isNull(catalogListings.checkStartedAt), lt(catalogListings.checkStartedAt, startedBefore)),
        notExists(
          db
            .select({ one: sql`1` })
            .from(deployments)
            .where(
              and(
                eq(deployments.userId, PLATFORM_USER_ID),
                eq(deployments.serverKind, "catalog"),
                eq(deployments.serverRef, catalogListings.serverId),
              ),
            ),
        ),
      ),
    );
  return rows.map((r) => r.id);
}

/** What deployabilityOf reads of an entry, with its id. */
export interface SeedEntry {
  id: string;
  npxCommand: string | null;
  repositoryUrl: string | null;
  url: string | null;
  packages: unknown;
}

/**
 * The platform's own demo entries (trustedSeed) still listed and never checked, and not being
 * checked now: the seed's order (newest first, as the directory shows them).
 */
export async function uncheckedSeeds(db: Db): Promise<SeedEntry[]> {
  return db
    .select({
      id: mcpServers.id,
      npxCommand: mcpServers.npxCommand,
      repositoryUrl: mcpServers.repositoryUrl,
      url: mcpServers.url,
      packages: mcpServers.packages,
    })
    .from(mcpServers)
    .leftJoin(catalogListings, eq(catalogListings.serverId, mcpServers.id))
    .where(
      and(
        sql`${mcpServers.seedCommand} = ${mcpServers.npxCommand}`,
        eq(mcpServers.isApproved, true),
        isNull(mcpServers.withdrawnAt),
        isNull(mcpServers.checkOutcome),
        sql`${catalogListings.checkStatus} is distinct from 'checking'`,
      ),
    )
    .orderBy(desc(mcpServers.createdAt), mcpServers.id);
}

/** A check of one of the platform's own demo entries is under way (by anyone, anywhere). */
export async function seedCheckUnderWay(db: Db): Promise<boolean> {
  const [r] = await db
    .select({ id: mcpServers.id })
    .from(mcpServers)
    .innerJoin(catalogListings, eq(catalogListings.serverId, mcpServers.id))
    .where(and(sql`${mcpServers.seedCommand} = ${mcpServers.npxCommand}`, eq(catalogListings.checkStatus, "checking")))
    .limit(1);
  return Boolean(r);
}

/** The platform's check deployments (a process that started one may have gone before it ended). */
export async function platformDeployments(db: Db): Promise<DeploymentRow[]> {
  return db.select().from(deployments).where(eq(deployments.userId, PLATFORM_USER_ID));
}
