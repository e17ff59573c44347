import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { waitlist } from "../../db/schema.js";

/** Inserts the address unless it is already listed (case-insensitively). Returns true when a row was added. */
export async function addToWaitlist(db: Db, email: string): Promise<boolean> {
  const rows = await db.insert(waitlist).values({ email }).onConflictDoNothing().returning({ id: waitlist.id });
  return rows.length > 0;
}

export async function countWaitlist(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(waitlist);
  return row?.n ?? 0;
}
