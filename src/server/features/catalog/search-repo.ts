// The directory's queries: a page of approved entries matching a search (prefix words, close
// spellings, relevance among the most used) and an entry's related servers. Text searches are
// matched, corrected and ordered by the in-process index (search-index.ts); PostgreSQL gives the
// cards of the page, which stay cached until the next catalogue change (cache.ts).
import { and, desc, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import { SEARCH_COUNT_CAP } from "~/shared/catalog.js";
import { catalogIndex } from "./catalog-index.js";
import { cachedEach } from "./cache.js";
import { approvedCardsByIds, cardColumns, type CardRow } from "./index-repo.js";
import { findServer, type ServerRow } from "./repo.js";
import { filtersOf, prefixQuery, queryWords, seenByAll, usersOf, type SearchParams } from "./search-sql.js";

export { prefixQuery, queryWords, type SearchParams } from "./search-sql.js";
export type { CardRow } from "./index-repo.js";

/** Counting stops here: "1,000+" is as useful to a person as an exact 8,213, and far cheaper. */
const COUNT_CAP = SEARCH_COUNT_CAP;
/** Relevance is computed among this many most-used matches, which bounds the work per query. */
const RELEVANCE_CANDIDATES = 300;
/** Entries a cursor's listing may gain ahead of its place between two pages, still ranked. */
const SHIFT_ROOM = 100;

/** The approved entries' cards with these ids, in the order given (an entry gone meanwhile is left out). */
export async function cardsByIds(db: Db, ids: string[]): Promise<CardRow[]> {
  const cards = await cachedEach(db, "card:", ids, async (missing) => {
    const found = await approvedCardsByIds(db, missing);
    return new Map(found.map((c) => [c.id, c]));
  });
  return ids.map((id) => cards.get(id)).filter((c): c is CardRow => c !== undefined);
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
async function browse(db: Db, p: SearchParams): Promise<{ rows: CardRow[]; total: number }> {
  const where = and(...filtersOf(p));
  // Every order ends with the id: entries with the same name or count (the registry has many) then
  // keep one place, so a page never repeats one and no entry falls between two pages. Text compares
  // by code point ("C"), as the search index does (search-columns.ts), whatever the database's locale.
  const name = sql`lower(${mcpServers.name}) collate "C"`;
  const id = sql`${mcpServers.id} collate "C"`;
  const users = usersOf(p.asOf);
  const order: SQL[] =
    p.sort === "name" ? [name, id] : p.sort === "newest" ? [desc(mcpServers.createdAt), id] : [sql`${users} desc`, name, id];
  const after = p.after?.length ? await keyAfter(db, p, name, id, users) : undefined;
  const [total, rows] = await Promise.all([
    countExact(db, where),
    db
      .select(cardColumns)
      .from(mcpServers)
      .where(after ? and(where, after) : where)
      .orderBy(...order)
      .limit(p.limit)
      .offset(after ? 0 : p.offset),
  ]);
  return { rows, total };
}

/**
 * What comes after the previous page's last entry in the listing's order. By name or popularity,
 * by the key the cursor carries (the entry's name and count as that page had them), so nothing
 * done to the entry since (renamed, withdrawn) moves the place. Newest first, by its creation
 * time (which never changes), read from the first of the page's last entries anyone may still see;
 * undefined when none is.
 */
async function keyAfter(db: Db, p: SearchParams, name: SQL, id: SQL, users: SQL): Promise<SQL | undefined> {
  const ids = p.after!;
  const afterId = (last: string) => sql`${id} > ${last} collate "C"`;
  if (p.sort !== "newest" && p.afterKey) {
    const kName = sql`lower(${p.afterKey.name}) collate "C"`;
    const byName = sql`(${name} > ${kName} or (${name} = ${kName} and ${afterId(ids[0]!)}))`;
    return p.sort === "name" ? byName : sql`(${users} < ${p.afterKey.users} or (${users} = ${p.afterKey.users} and ${byName}))`;
  }
  if (p.sort !== "newest") return undefined;
  const found = await db
    .select({ id: mcpServers.id, created: sql<string>`${mcpServers.createdAt}::text` })
    .from(mcpServers)
    // Only an entry anyone may see (listed, or withdrawn with its page kept): a forged cursor must
    // not learn when a pending entry was made.
    .where(sql`${mcpServers.id} in ${ids} and ${seenByAll()}`);
  const k = ids.map((i) => found.find((f) => f.id === i)).find((f) => f !== undefined);
  if (!k) return undefined;
  return sql`(${mcpServers.createdAt} < ${k.created}::timestamptz or (${mcpServers.createdAt} = ${k.created}::timestamptz and ${afterId(k.id)}))`;
}

/**
 * Approved entries matching the filters, one page, with the total (capped at COUNT_CAP for text
 * searches). A cursor's page after counts moved (p.asOf) is ordered by the popularity its listing
 * began with, by the same index.
 */
export async function searchServers(db: Db, p: SearchParams): Promise<{ rows: CardRow[]; total: number }> {
  const q = p.q?.trim().toLowerCase();
  const words = q ? queryWords(q) : [];
  if (!q || words.length === 0) return browse(db, p);
  const index = await catalogIndex(db);
  const filters = { category: p.category, type: p.type, works: p.works };
  let alternatives = new Map<string, string[]>();
  let matches = index.match(words, alternatives, filters);
  // Few exact hits: widen each word to its close spellings.
  if (matches.ordinals.length < p.limit) {
    const close = index.closeSpellings(words);
    if (prefixQuery(words, close) !== prefixQuery(words)) {
      alternatives = close;
      matches = index.match(words, alternatives, filters);
    }
  }
  const total = Math.min(matches.ordinals.length, COUNT_CAP);
  const sort = p.sort ?? "relevance";
  const ordered =
    sort === "relevance"
      ? index.relevance(matches, words, q, Math.max(RELEVANCE_CANDIDATES, p.offset + p.limit + SHIFT_ROOM), p.asOf)
      : sort === "popular"
        ? index.popular(matches.ordinals, p.asOf)
        : index.sortBy(matches.ordinals, sort);
  // A cursor's page goes on after its previous page's last entry, wherever that is now.
  let start = p.offset;
  for (const id of p.after ?? []) {
    const at = index.positionOf(ordered, id);
    if (at >= 0) {
      start = at + 1;
      break;
    }
  }
  return { rows: await cardsByIds(db, index.idsOf(ordered.slice(start, start + p.limit))), total };
}

/** Up to `limit` approved servers: same category first, then shared tags, then use count. */
export async function relatedServers(db: Db, server: ServerRow, limit: number): Promise<CardRow[]> {
  const index = await catalogIndex(db);
  return cardsByIds(db, index.related(server.id, server.category, server.tags, limit));
}

/**
 * An approved entry and its related servers, for its page; undefined when the index does not hold
 * the entry (unknown, pending or rejected: relatedServers then works from its row). The related
 * cards are mostly cached (the most used entries of a category are everyone's related servers).
 */
export async function serverWithRelated(db: Db, id: string, limit: number): Promise<{ row: ServerRow; related: CardRow[] } | undefined> {
  const related = (await catalogIndex(db)).relatedOf(id, limit);
  if (!related) return undefined;
  const [row, cards] = await Promise.all([findServer(db, id), cardsByIds(db, related)]);
  return row ? { row, related: cards } : undefined;
}
