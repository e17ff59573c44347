// A listing as of when a cursor's first page was read (search-repo.ts): popularity then, for the
// entries whose count changed since (popularity_changes, kept by a trigger for two hours), and a
// text search ordered by it. Used only for pages after counts moved; the rest reads the index.
import { and, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import { SEARCH_COUNT_CAP } from "~/shared/catalog.js";
import type { ServerRow } from "./repo.js";
import { filtersOf, prefixQuery, usersOf, type SearchParams } from "./search-sql.js";

/** Relevance is computed among this many most-used matches (as the index's path does). */
const RELEVANCE_CANDIDATES = 300;

/** What an entry's popularity was at `at`, for those whose count changed since (the earliest old value). */
export async function popularityAsOf(db: Db, at: Date): Promise<Map<string, number>> {
  const r = await db.execute<{ server_id: string; old_users: number }>(sql`
    select distinct on (server_id) server_id, old_users from popularity_changes
    where changed_at > ${at.toISOString()} order by server_id, changed_at, id`);
  return new Map(r.rows.map((row) => [row.server_id, Number(row.old_users)]));
}

/** A text search's page with popularity as of the cursor's start (matching and relevance as the index's path). */
export async function searchAsOf(
  db: Db,
  p: SearchParams,
  q: string,
  words: string[],
  close: Map<string, string[]>,
): Promise<{ rows: ServerRow[]; total: number }> {
  const users = usersOf(p.asOf);
  const count = async (tsq: string) => {
    const where = and(...filtersOf(p), sql`search_doc @@ to_tsquery('simple', ${tsq})`);
    const r = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from (select 1 from ${mcpServers} where ${where} limit ${SEARCH_COUNT_CAP}) s`,
    );
    return { where, total: r.rows[0]?.n ?? 0 };
  };
  let tsq = prefixQuery(words)!;
  let { where, total } = await count(tsq);
  // Few exact hits: widen each word to its close spellings (as the first page did).
  if (total < p.limit && prefixQuery(words, close) !== tsq) {
    tsq = prefixQuery(words, close)!;
    ({ where, total } = await count(tsq));
  }
  const sort = p.sort ?? "relevance";
  const ids =
    sort === "relevance"
      ? await db.execute<{ id: string }>(sql`
          select id from (
            select id, search_doc, search_text, ${users} as users from ${mcpServers} where ${where}
            order by users desc, lower(name), id limit ${Math.max(RELEVANCE_CANDIDATES, p.offset + p.limit)}
          ) c
          order by ts_rank_cd(search_doc, to_tsquery('simple', ${tsq})) * 4 + word_similarity(${q}, search_text) desc, users desc, id
          limit ${p.limit} offset ${p.offset}`)
      : await db.execute<{ id: string }>(sql`
          select id from ${mcpServers} where ${where}
          order by ${sort === "name" ? sql`lower(name), id` : sort === "newest" ? sql`created_at desc, id` : sql`${users} desc, lower(name), id`}
          limit ${p.limit} offset ${p.offset}`);
  const order = ids.rows.map((r) => r.id);
  if (order.length === 0) return { rows: [], total };
  const rows = await db.select().from(mcpServers).where(inArray(mcpServers.id, order));
  const place = new Map(order.map((id, i) => [id, i]));
  return { rows: rows.sort((a, b) => place.get(a.id)! - place.get(b.id)!), total };
}
