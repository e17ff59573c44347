import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { apiKeys, ownedServers, profiles, user } from "../../db/schema.js";

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type OwnedServerRow = typeof ownedServers.$inferSelect;
export type NewOwnedServerRow = typeof ownedServers.$inferInsert;

const isUniqueViolation = (e: unknown) =>
  (e as { code?: string }).code === "23505" || (e as { cause?: { code?: string } }).cause?.code === "23505";

// --- API keys -------------------------------------------------------------------------------

export async function listKeys(db: Db, userId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), apiKeys.id);
}

/** False when the user already has a key with this name. */
export async function insertKey(
  db: Db,
  row: {
    userId: string;
    name: string;
    prefix: string;
    keyHash: string;
    scopes: string[];
    resources: string[] | null;
    expiresAt: Date | null;
  },
): Promise<ApiKeyRow | null> {
  try {
    const [r] = await db.insert(apiKeys).values(row).returning();
    return r ?? null;
  } catch (e) {
    if (isUniqueViolation(e)) return null;
    throw e;
  }
}

export async function deleteKey(db: Db, userId: string, name: string): Promise<boolean> {
  const rows = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.name, name)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/** The key's owner as a viewer needs them, or undefined for an unknown (or revoked) key. */
export async function findKeyOwner(db: Db, keyHash: string) {
  const [r] = await db
    .select({
      keyId: apiKeys.id,
      lastUsedAt: apiKeys.lastUsedAt,
      scopes: apiKeys.scopes,
      resources: apiKeys.resources,
      expiresAt: apiKeys.expiresAt,
      id: user.id,
      email: user.email,
      emailVerified: user.emailVerified,
      username: profiles.username,
      fullName: profiles.fullName,
      isAdmin: profiles.isAdmin,
    })
    .from(apiKeys)
    .innerJoin(user, eq(user.id, apiKeys.userId))
    .innerJoin(profiles, eq(profiles.id, apiKeys.userId))
    .where(eq(apiKeys.keyHash, keyHash));
  return r;
}

export async function touchKey(db: Db, keyId: number): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, keyId));
}

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
