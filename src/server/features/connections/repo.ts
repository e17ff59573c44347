import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { connectionAuthorizations } from "./schema.js";

// The SQL of connections' own table, connection_authorizations (schema.ts); a connection itself
// is a deployment row, written by features/deployments (deployments/kinds.ts).

/** An OAuth sign-in under way (upstream-oauth.ts): kept until `expiresAt`; old ones are cleared on the way. */
export async function insertSignIn(db: Db, row: typeof connectionAuthorizations.$inferInsert): Promise<void> {
  await db.delete(connectionAuthorizations).where(sql`${connectionAuthorizations.expiresAt} < now()`);
  await db.insert(connectionAuthorizations).values(row);
}

/** The sign-in `stateHash` names, if it is this user's and still valid; taken (deleted) so it is used once. */
export async function takeSignIn(db: Db, stateHash: string, userId: string): Promise<string | undefined> {
  const [row] = await db
    .delete(connectionAuthorizations)
    .where(and(eq(connectionAuthorizations.stateHash, stateHash), eq(connectionAuthorizations.userId, userId)))
    .returning();
  return row && row.expiresAt.getTime() > Date.now() ? row.sealed : undefined;
}
