// A listing as of when a cursor's first page was read (search-repo.ts): popularity then, for the
// entries whose count changed since (popularity_changes, kept by a trigger for two hours). Browsing
// orders by it in SQL (search-sql.ts usersOf), a text search in the index (search-index.ts).
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";

/** What an entry's popularity was at `at`, for those whose count changed since (the earliest old value). */
export async function popularityAsOf(db: Db, at: Date): Promise<Map<string, number>> {
  const r = await db.execute<{ server_id: string; old_users: number }>(sql`
    select distinct on (server_id) server_id, old_users from popularity_changes
    where changed_at > ${at.toISOString()} order by server_id, changed_at, id`);
  return new Map(r.rows.map((row) => [row.server_id, Number(row.old_users)]));
}
