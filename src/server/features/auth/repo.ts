import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { usedTokens, user } from "../../db/schema.js";

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

/** Claims a one-time token; false when it was used before. */
export async function claimToken(db: Db, token: string): Promise<boolean> {
  const rows = await db
    .insert(usedTokens)
    .values({ tokenHash: hash(token) })
    .onConflictDoNothing()
    .returning({ h: usedTokens.tokenHash });
  return rows.length > 0;
}

export async function releaseToken(db: Db, token: string): Promise<void> {
  await db.delete(usedTokens).where(eq(usedTokens.tokenHash, hash(token)));
}

export async function findUserById(db: Db, id: string) {
  const [u] = await db.select().from(user).where(eq(user.id, id));
  return u;
}

export async function findUserByEmail(db: Db, email: string) {
  const [u] = await db
    .select()
    .from(user)
    .where(sql`lower(${user.email}) = lower(${email})`);
  return u;
}
