import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { organization, ownedServers, profiles } from "../../db/schema.js";

export type OwnedServerRow = typeof ownedServers.$inferSelect;
export type NewOwnedServerRow = typeof ownedServers.$inferInsert;

const isUniqueViolation = (e: unknown) =>
  (e as { code?: string }).code === "23505" || (e as { cause?: { code?: string } }).cause?.code === "23505";

// --- Owned servers --------------------------------------------------------------------------

export interface OwnedServerWithOwner extends OwnedServerRow {
  /** the owner part of its name: the person's username, or the organisation's slug */
  ownerUsername: string;
  /** the organisation that owns it (its account is the owner), or null for a person's */
  ownerOrg: { slug: string; name: string } | null;
}

/** A server with its owner's name: a person's profile, or the organisation whose account owns it. */
function withOwner(db: Db) {
  return db
    .select({ s: ownedServers, username: profiles.username, orgSlug: organization.slug, orgName: organization.name })
    .from(ownedServers)
    .leftJoin(profiles, eq(profiles.id, ownedServers.ownerId))
    .leftJoin(organization, sql`${ownedServers.ownerId} = 'org_' || ${organization.id}`)
    .$dynamic();
}

type Joined = { s: OwnedServerRow; username: string | null; orgSlug: string | null; orgName: string | null };

const ownerOf = (r: Joined): OwnedServerWithOwner => ({
  ...r.s,
  ownerUsername: r.username ?? r.orgSlug ?? "",
  ownerOrg: r.orgSlug !== null && r.orgName !== null ? { slug: r.orgSlug, name: r.orgName } : null,
});

export async function findOwnedServer(db: Db, qualifiedName: string): Promise<OwnedServerWithOwner | undefined> {
  const [r] = await withOwner(db).where(sql`lower(${ownedServers.qualifiedName}) = lower(${qualifiedName})`);
  return r ? ownerOf(r) : undefined;
}

/** The servers of these owners (a person and their organisations' accounts), newest first. */
export async function listOwnedServers(db: Db, ownerIds: string[]): Promise<OwnedServerWithOwner[]> {
  if (ownerIds.length === 0) return [];
  const rows = await withOwner(db)
    .where(inArray(ownedServers.ownerId, ownerIds))
    .orderBy(desc(ownedServers.createdAt), ownedServers.qualifiedName);
  return rows.map(ownerOf);
}

/** Null when the qualified name is taken (by anyone, in any letter case). */
export async function insertOwnedServer(db: Db, row: NewOwnedServerRow): Promise<OwnedServerRow | null> {
  try {
    const [r] = await db.insert(ownedServers).values(row).returning();
    return r ?? null;
  } catch (e) {
    if (isUniqueViolation(e)) return null;
    throw e;
  }
}

export async function updateOwnedServer(
  db: Db,
  qualifiedName: string,
  ownerId: string,
  changes: Omit<Partial<NewOwnedServerRow>, "qualifiedName" | "ownerId" | "createdAt">,
): Promise<OwnedServerRow | undefined> {
  const [r] = await db
    .update(ownedServers)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(ownedServers.qualifiedName, qualifiedName), eq(ownedServers.ownerId, ownerId)))
    .returning();
  return r;
}

/** Whether these owners (a person and their organisations' accounts) have a connection by URL (`remote`) or a toolset of that name: what a key may be limited to. */
export async function userHasServer(db: Db, ownerIds: readonly string[], kind: "remote" | "toolset", name: string): Promise<boolean> {
  const r = await db.execute(
    sql`select 1 from deployments where user_id = any(${sql.param([...ownerIds])}::text[]) and server_kind = ${kind} and server_ref = ${name} limit 1`,
  );
  return r.rows.length > 0;
}
