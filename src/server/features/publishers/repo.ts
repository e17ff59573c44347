import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { ownedServers, profiles } from "../../db/schema.js";

export type OwnedServerRow = typeof ownedServers.$inferSelect;
export type NewOwnedServerRow = typeof ownedServers.$inferInsert;

const isUniqueViolation = (e: unknown) =>
  (e as { code?: string }).code === "23505" || (e as { cause?: { code?: string } }).cause?.code === "23505";

// --- Owned servers --------------------------------------------------------------------------

export interface OwnedServerWithOwner extends OwnedServerRow {
  ownerUsername: string;
}

export async function findOwnedServer(db: Db, qualifiedName: string): Promise<OwnedServerWithOwner | undefined> {
  const [r] = await db
    .select({ s: ownedServers, username: profiles.username })
    .from(ownedServers)
    .innerJoin(profiles, eq(profiles.id, ownedServers.ownerId))
    .where(sql`lower(${ownedServers.qualifiedName}) = lower(${qualifiedName})`);
  return r ? { ...r.s, ownerUsername: r.username } : undefined;
}

export async function listOwnedServers(db: Db, ownerId: string): Promise<OwnedServerWithOwner[]> {
  const rows = await db
    .select({ s: ownedServers, username: profiles.username })
    .from(ownedServers)
    .innerJoin(profiles, eq(profiles.id, ownedServers.ownerId))
    .where(eq(ownedServers.ownerId, ownerId))
    .orderBy(desc(ownedServers.createdAt), ownedServers.qualifiedName);
  return rows.map((r) => ({ ...r.s, ownerUsername: r.username }));
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

/** Whether the user has a connection by URL (`remote`) or a toolset of that name: what a key may be limited to. */
export async function userHasServer(db: Db, userId: string, kind: "remote" | "toolset", name: string): Promise<boolean> {
  const r = await db.execute(
    sql`select 1 from deployments where user_id = ${userId} and server_kind = ${kind} and server_ref = ${name} limit 1`,
  );
  return r.rows.length > 0;
}
