// The SQL behind the in-process search index: the rows it is built from, and the page rows it
// points at (by id, in one query).
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import type { ServerRow } from "./repo.js";
import type { IndexRow } from "./search-index.js";

/**
 * Every approved entry with its lexemes and its place in each order the directory sorts by.
 * PostgreSQL computes the orders, so its collation decides lower(name) as it always did.
 */
export async function loadIndexRows(db: Db): Promise<IndexRow[]> {
  // JSON text parses faster in Node than pg's array literals (measured at 100,000 rows; one
  // json_agg document was slower still, in PostgreSQL).
  const r = await db.execute<{
    id: string;
    category: string;
    type: string;
    t: string;
    w: boolean;
    l: string | null;
    pop: number;
    rel: number;
    az: number;
    nw: number;
  }>(sql`
    select id, category, type, to_json(tags)::text as t, coalesce(check_outcome = 'works', false) as w,
           to_json(tsvector_to_array(search_doc))::text as l,
           (row_number() over (order by recent_users desc, lower(name), id))::int - 1 as pop,
           (row_number() over (order by recent_users desc, id))::int - 1 as rel,
           (row_number() over (order by lower(name), id))::int - 1 as az,
           (row_number() over (order by created_at desc, id))::int - 1 as nw
    from ${mcpServers} where is_approved`);
  return r.rows.map((x) => ({
    id: x.id,
    category: x.category,
    type: x.type,
    tags: JSON.parse(x.t) as string[],
    works: x.w,
    lexemes: x.l ? (JSON.parse(x.l) as string[]) : [],
    pop: x.pop,
    rel: x.rel,
    az: x.az,
    nw: x.nw,
  }));
}

/**
 * Changes whenever a column the index is built from changes (not use_count, which every usage
 * flush bumps): lets a process notice a write it was not told of, for ~50 ms at 100,000 rows.
 */
export async function catalogFingerprint(db: Db): Promise<string> {
  const r = await db.execute<{ f: string }>(sql`
    select count(*) || ':' || coalesce(sum(hashtext(concat_ws(chr(31),
      id, is_approved, category, type, recent_users, created_at, name, description, tags::text, check_outcome))::bigint), 0) as f
    from ${mcpServers}`);
  return r.rows[0]!.f;
}

/** The approved entries with these ids, in the order given (an entry gone meanwhile is left out). */
export async function approvedRowsByIds(db: Db, ids: string[]): Promise<ServerRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.isApproved, true), inArray(mcpServers.id, ids)));
  const place = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => place.get(a.id)! - place.get(b.id)!);
}

/** The entry `id` (whatever its state) and the approved entries among `others`, in one query. */
export async function entryAndApproved(db: Db, id: string, others: string[]): Promise<ServerRow[]> {
  const ids = sql`array(select jsonb_array_elements_text(${JSON.stringify(others)}::jsonb))`;
  return db
    .select()
    .from(mcpServers)
    .where(or(eq(mcpServers.id, id), and(eq(mcpServers.isApproved, true), sql`${mcpServers.id} = any(${ids})`)));
}

/**
 * One page of `candidates` by relevance: the text rank (name, tags and id weigh more than the
 * description) plus how closely the query resembles the name, tags and id; ties by use, then id.
 */
export async function rankedPage(
  db: Db,
  candidates: string[],
  tsq: string,
  q: string,
  limit: number,
  offset: number,
): Promise<ServerRow[]> {
  if (candidates.length === 0) return [];
  const query = sql`to_tsquery('simple', ${tsq})`;
  // One parameter (drizzle would spread a JS array into a list).
  const ids = sql`array(select jsonb_array_elements_text(${JSON.stringify(candidates)}::jsonb))`;
  return db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.isApproved, true), sql`${mcpServers.id} = any(${ids})`))
    .orderBy(
      sql`ts_rank_cd(search_doc, ${query}) * 4 + word_similarity(${q}, search_text) desc`,
      sql`${mcpServers.recentUsers} desc`,
      mcpServers.id,
    )
    .limit(limit)
    .offset(offset);
}
