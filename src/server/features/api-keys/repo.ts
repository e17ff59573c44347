import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { apiKeys, profiles, user } from "../../db/schema.js";

// The api_keys table's SQL (features/api-keys/schema.ts): one writer, this feature.

export type ApiKeyRow = typeof apiKeys.$inferSelect;

const isUniqueViolation = (e: unknown) =>
  (e as { code?: string }).code === "23505" || (e as { cause?: { code?: string } }).cause?.code === "23505";

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
