import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { usedTokens } from "../../db/schema.js";

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
