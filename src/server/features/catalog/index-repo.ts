// The SQL behind the in-process search index: the rows it is built from, and the cards of the
// page it points at (by id, in one query).
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import type { ServerRow } from "./repo.js";
import type { IndexRow } from "./search-index.js";

/**
 * Every approved entry with its lexemes and its place in each order the directory sorts by.
 * PostgreSQL computes the orders, so its collation decides lower(name) as it always did.
 */
/** Lexemes are joined by the unit separator, which no lexeme holds (the parser splits on control characters). */
const UNIT = "\u001f";

export async function loadIndexRows(db: Db): Promise<IndexRow[]> {
  // Lexemes as one separated string and tags as JSON text: both parse faster in Node than pg's
  // array literals (measured at 100,000 rows; one json_agg document was slower still, in PostgreSQL).
  const r = await db.execute<{
    id: string;
    category: string;
    type: string;
    t: string;
    w: boolean;
    l: string | null;
    la: string | null;
    users: number;
    n: string;
    st: string;
    pop: number;
    rel: number;
    az: number;
    nw: number;
  }>(sql`
    select id, category, type, to_json(tags)::text as t, coalesce(check_outcome = 'works', false) as w,
           array_to_string(tsvector_to_array(search_doc), chr(31)) as l,
           array_to_string(tsvector_to_array(ts_filter(search_doc, '{a}')), chr(31)) as la,
           recent_users as users, lower(name) as n, search_text as st,
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
    lexemes: x.l ? x.l.split(UNIT) : [],
    strong: x.la ? x.la.split(UNIT) : [],
    users: x.users,
    name: x.n,
    text: x.st,
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

/** What a directory card shows of an entry (toCatalogServer): no documents, no search columns. */
export const cardColumns = {
  id: mcpServers.id,
  name: mcpServers.name,
  description: mcpServers.description,
  tags: mcpServers.tags,
  type: mcpServers.type,
  category: mcpServers.category,
  repositoryUrl: mcpServers.repositoryUrl,
  homepage: mcpServers.homepage,
  documentation: mcpServers.documentation,
  npxCommand: mcpServers.npxCommand,
  requiredKeys: mcpServers.requiredKeys,
  recentUsers: mcpServers.recentUsers,
  upstreamStatus: mcpServers.upstreamStatus,
  withdrawnAt: mcpServers.withdrawnAt,
  checkOutcome: mcpServers.checkOutcome,
};
export type CardRow = Pick<ServerRow, keyof typeof cardColumns>;

/** The cards of the approved entries among these ids (in no particular order). */
export async function approvedCardsByIds(db: Db, ids: string[]): Promise<CardRow[]> {
  if (ids.length === 0) return [];
  return db
    .select(cardColumns)
    .from(mcpServers)
    .where(and(eq(mcpServers.isApproved, true), inArray(mcpServers.id, ids)));
}
