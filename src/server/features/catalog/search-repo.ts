// The directory's queries: a page of approved entries matching a search (prefix words, close
// spellings, relevance among the most used) and an entry's related servers.
import { and, desc, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import { SEARCH_COUNT_CAP } from "~/shared/catalog.js";
import { catalogIndex } from "./catalog-index.js";
import { approvedRowsByIds, entryAndApproved, rankedPage } from "./index-repo.js";
import { searchAsOf } from "./asof-repo.js";
import { filtersOf, prefixQuery, queryWords, usersOf, type SearchParams } from "./search-sql.js";

export { prefixQuery, queryWords, type SearchParams } from "./search-sql.js";
import type { ServerRow } from "./repo.js";

/** Counting stops here: "1,000+" is as useful to a person as an exact 8,213, and far cheaper. */
const COUNT_CAP = SEARCH_COUNT_CAP;
/** Relevance is computed among this many most-used matches, which bounds the work per query. */
const RELEVANCE_CANDIDATES = 300;

/** Close spellings from the catalogue's vocabulary ('githb' -> github), via its trigram index, in one query. */
async function closeSpellings(db: Db, words: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const candidates = words.filter((w) => w.length >= 3);
  if (candidates.length === 0) return out;
  const r = await db.execute<{ w: string; word: string }>(sql`
    select q.w, s.word from jsonb_array_elements_text(${JSON.stringify(candidates)}::jsonb) as q(w)
    cross join lateral (
      select word from search_words where word % q.w and word <> q.w order by word <-> q.w, word limit 3
    ) s`);
  // Only plain words may reach to_tsquery (lexemes can hold '-', '.', '_').
  for (const { w, word } of r.rows) if (/^[\p{L}\p{N}]+$/u.test(word)) out.set(w, [...(out.get(w) ?? []), word]);
  return out;
}

/** Without a text query the filters are index-backed, so the exact total stays cheap. */
async function countExact(db: Db, where: SQL | undefined): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(mcpServers)
    .where(where);
  return r?.n ?? 0;
}

/** Browsing without words: PostgreSQL's indexes serve the filters and orders directly. */
async function browse(db: Db, p: SearchParams): Promise<{ rows: ServerRow[]; total: number }> {
  const where = and(...filtersOf(p));
  // Every order ends with the id: entries with the same name or count (the registry has many) then
  // keep one place, so a page never repeats one and no entry falls between two pages.
  const order: SQL[] =
    p.sort === "name"
      ? [sql`lower(${mcpServers.name})`, sql`${mcpServers.id}`]
      : p.sort === "newest"
        ? [desc(mcpServers.createdAt), sql`${mcpServers.id}`]
        : [sql`${usersOf(p.asOf)} desc`, sql`lower(${mcpServers.name})`, sql`${mcpServers.id}`];
  const [total, rows] = await Promise.all([
    countExact(db, where),
    db
      .select()
      .from(mcpServers)
      .where(where)
      .orderBy(...order)
      .limit(p.limit)
      .offset(p.offset),
  ]);
  return { rows, total };
}

/**
 * Approved entries matching the filters, one page, with the total (capped at COUNT_CAP for text
 * searches). Text searches are matched and ordered by the in-process index (search-index.ts);
 * relevance is still PostgreSQL's rank, over the most-used matches only.
 */
export async function searchServers(db: Db, p: SearchParams): Promise<{ rows: ServerRow[]; total: number }> {
  const q = p.q?.trim().toLowerCase();
  const words = q ? queryWords(q) : [];
  if (!q || words.length === 0) return browse(db, p);
  // A cursor's page after counts moved: ordered as the listing began, which only PostgreSQL knows.
  if (p.asOf?.size) return searchAsOf(db, p, q, words, await closeSpellings(db, words));
  const index = await catalogIndex(db);
  const filters = { category: p.category, type: p.type, works: p.works };
  let alternatives = new Map<string, string[]>();
  let matches = index.match(words, alternatives, filters);
  // Few exact hits: widen each word to its close spellings.
  if (matches.length < p.limit) {
    const close = await closeSpellings(db, words);
    if (prefixQuery(words, close) !== prefixQuery(words)) {
      alternatives = close;
      matches = index.match(words, alternatives, filters);
    }
  }
  const total = Math.min(matches.length, COUNT_CAP);
  if ((p.sort ?? "relevance") === "relevance") {
    const window = Math.max(RELEVANCE_CANDIDATES, p.offset + p.limit);
    const candidates = index.idsOf(matches.slice(0, window));
    return { rows: await rankedPage(db, candidates, prefixQuery(words, alternatives)!, q, p.limit, p.offset), total };
  }
  const ordered = p.sort === "name" || p.sort === "newest" ? index.sortBy(matches, p.sort) : matches;
  return { rows: await approvedRowsByIds(db, index.idsOf(ordered.slice(p.offset, p.offset + p.limit))), total };
}

/** Up to `limit` approved servers: same category first, then shared tags, then use count. */
export async function relatedServers(db: Db, server: ServerRow, limit: number): Promise<ServerRow[]> {
  const index = await catalogIndex(db);
  return approvedRowsByIds(db, index.related(server.id, server.category, server.tags, limit));
}

/**
 * An approved entry and its related servers in one query, for its page; undefined when the index
 * does not hold the entry (unknown, pending or rejected: relatedServers then works from its row).
 */
export async function serverWithRelated(db: Db, id: string, limit: number): Promise<{ row: ServerRow; related: ServerRow[] } | undefined> {
  const related = (await catalogIndex(db)).relatedOf(id, limit);
  if (!related) return undefined;
  const rows = await entryAndApproved(db, id, related);
  const row = rows.find((r) => r.id === id);
  if (!row) return undefined;
  const place = new Map(related.map((rid, i) => [rid, i]));
  const others = rows.filter((r) => place.has(r.id)).sort((a, b) => place.get(a.id)! - place.get(b.id)!);
  return { row, related: others };
}
