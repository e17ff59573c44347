// The SQL behind the in-process search index: the rows it is built from, and the cards of the
// page it points at (by id, in one query).
import { and, eq, sql } from "drizzle-orm";
import { prepared, type Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import type { ServerRow } from "./repo.js";
import type { IndexRow } from "./search-columns.js";

/** Lexemes are joined by the unit separator, which no lexeme holds (the parser splits on control characters). */
const UNIT = "\u001f";

// Lexemes as one separated string and tags as JSON text: both parse faster in Node than pg's
// array literals (measured at 100,000 rows; one json_agg document was slower still, in PostgreSQL).
const indexColumns = sql`id, category, type, to_json(tags)::text as t, coalesce(check_outcome = 'works', false) as w,
  array_to_string(tsvector_to_array(search_doc), chr(31)) as l,
  array_to_string(tsvector_to_array(ts_filter(search_doc, '{a}')), chr(31)) as la,
  recent_users as users, lower(name) as n, search_text as st,
  (extract(epoch from created_at) * 1000000)::float8 as c`;

type IndexSqlRow = {
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
  c: number;
};

const toIndexRow = (x: IndexSqlRow): IndexRow => ({
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
  created: x.c,
});

/**
 * What the index holds, read under one snapshot: `snapshot` (pg_current_snapshot) names what it
 * saw, so loadIndexChanges can read exactly what committed after it.
 */
export interface IndexLoad<T> {
  rows: T;
  snapshot: string;
  /** approved entries then */
  approved: number;
}

/** Every approved entry with its lexemes and what the directory orders it by. */
export function loadIndexRows(db: Db): Promise<IndexLoad<IndexRow[]>> {
  return db.transaction(
    async (tx) => {
      const s = await tx.execute<{ s: string }>(sql`select pg_current_snapshot()::text as s`);
      const r = await tx.execute<IndexSqlRow>(sql`select ${indexColumns} from ${mcpServers} where is_approved`);
      return { rows: r.rows.map(toIndexRow), snapshot: s.rows[0]!.s, approved: r.rows.length };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

/**
 * The entries whose indexed columns changed in transactions `since` did not see (index_xid,
 * migration 0022): their rows, or null for those no longer approved. A hard delete leaves no row:
 * the approved count tells it.
 */
export function loadIndexChanges(db: Db, since: string): Promise<IndexLoad<Map<string, IndexRow | null>>> {
  return db.transaction(
    async (tx) => {
      const s = await tx.execute<{ s: string; n: number }>(
        sql`select pg_current_snapshot()::text as s, (select count(*) from ${mcpServers} where is_approved)::int as n`,
      );
      const r = await tx.execute<IndexSqlRow & { a: boolean }>(sql`
        select ${indexColumns}, is_approved as a from ${mcpServers}
        where index_xid >= pg_snapshot_xmin(${since}::pg_snapshot) and not pg_visible_in_snapshot(index_xid, ${since}::pg_snapshot)`);
      const rows = new Map(r.rows.map((x) => [x.id, x.a ? toIndexRow(x) : null]));
      return { rows, snapshot: s.rows[0]!.s, approved: s.rows[0]!.n };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
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
  // One statement whatever the number of ids (an array parameter), so it is prepared once.
  return prepared(db, "catalog_cards_by_ids", (d) =>
    d
      .select(cardColumns)
      .from(mcpServers)
      .where(and(eq(mcpServers.isApproved, true), sql`${mcpServers.id} = any(${sql.placeholder("ids")}::text[])`))
      .prepare("catalog_cards_by_ids"),
  ).execute({ ids });
}
