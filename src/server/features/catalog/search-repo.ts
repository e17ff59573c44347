// The directory's queries: a page of approved entries matching a search (prefix words, close
// spellings, relevance among the most used) and an entry's related servers.
import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import { SEARCH_COUNT_CAP } from "~/shared/catalog.js";
import type { ServerRow } from "./repo.js";

export interface SearchParams {
  q?: string;
  category?: string;
  type?: string;
  /** only entries whose last platform check worked ('Works here') */
  works?: boolean;
  sort?: "relevance" | "popular" | "newest" | "name";
  limit: number;
  offset: number;
  /**
   * Popularity as it was when a cursor's listing began, for the entries whose count changed since
   * (popularityAsOf): their old place is kept, so paging on never skips or repeats one.
   */
  asOf?: ReadonlyMap<string, number>;
}

/** What an entry's popularity was at `at`, for those whose count changed since (the earliest old value). */
export async function popularityAsOf(db: Db, at: Date): Promise<Map<string, number>> {
  const r = await db.execute<{ server_id: string; old_users: number }>(sql`
    select distinct on (server_id) server_id, old_users from popularity_changes
    where changed_at > ${at.toISOString()} order by server_id, changed_at, id`);
  return new Map(r.rows.map((row) => [row.server_id, Number(row.old_users)]));
}

/** recent_users, or its value as of a cursor's start for the entries that changed since. */
function usersOf(asOf: ReadonlyMap<string, number> | undefined): SQL {
  if (!asOf?.size) return sql`${mcpServers.recentUsers}`;
  return sql`coalesce((${JSON.stringify(Object.fromEntries(asOf))}::jsonb ->> ${mcpServers.id})::int, ${mcpServers.recentUsers})`;
}

/** Words of a query: only letters and digits ever reach to_tsquery. */
export function queryWords(q: string): string[] {
  return q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .slice(0, 8);
}

/** Every word as a prefix term ('postgre' finds 'postgres'), optionally with close spellings. */
export function prefixQuery(words: string[], alternatives: Map<string, string[]> = new Map()): string | null {
  if (!words.length) return null;
  return words.map((w) => (alternatives.get(w)?.length ? `(${[`${w}:*`, ...alternatives.get(w)!].join(" | ")})` : `${w}:*`)).join(" & ");
}

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

function matchCondition(tsq: string): SQL {
  return sql`search_doc @@ to_tsquery('simple', ${tsq})`;
}

async function countCapped(db: Db, where: SQL | undefined): Promise<number> {
  const r = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from (select 1 from ${mcpServers} where ${where} limit ${COUNT_CAP}) s`,
  );
  return r.rows[0]?.n ?? 0;
}

/** Without a text query the filters are index-backed, so the exact total stays cheap. */
async function countExact(db: Db, where: SQL | undefined): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(mcpServers)
    .where(where);
  return r?.n ?? 0;
}

/** Approved entries matching the filters, one page, with the total (capped at COUNT_CAP for text searches). */
export async function searchServers(db: Db, p: SearchParams): Promise<{ rows: ServerRow[]; total: number }> {
  const base: SQL[] = [eq(mcpServers.isApproved, true)];
  if (p.category) base.push(eq(mcpServers.category, p.category));
  if (p.type) base.push(eq(mcpServers.type, p.type));
  if (p.works) base.push(eq(mcpServers.checkOutcome, "works"));
  const q = p.q?.trim().toLowerCase();
  const words = q ? queryWords(q) : [];
  let tsq = prefixQuery(words);

  let conds = base;
  let total: number;
  if (q && tsq) {
    conds = [...base, matchCondition(tsq)];
    total = await countCapped(db, and(...conds));
    // Few exact hits: widen each word to its close spellings.
    if (total < p.limit) {
      const wider = prefixQuery(words, await closeSpellings(db, words));
      if (wider && wider !== tsq) {
        tsq = wider;
        conds = [...base, matchCondition(tsq)];
        total = await countCapped(db, and(...conds));
      }
    }
  } else {
    total = await countExact(db, and(...base));
  }
  const where = and(...conds);

  const users = usersOf(p.asOf);
  if (q && tsq && (p.sort ?? "relevance") === "relevance") {
    const query = sql`to_tsquery('simple', ${tsq})`;
    const window = Math.max(RELEVANCE_CANDIDATES, p.offset + p.limit);
    const ids = await db.execute<{ id: string }>(sql`
      select id from (
        select id, search_doc, search_text, ${users} as users from ${mcpServers} where ${where}
        order by users desc, id limit ${window}
      ) c
      order by ts_rank_cd(search_doc, ${query}) * 4 + word_similarity(${q}, search_text) desc, users desc, id
      limit ${p.limit} offset ${p.offset}`);
    const order = ids.rows.map((r) => r.id);
    if (order.length === 0) return { rows: [], total };
    const rows = await db.select().from(mcpServers).where(inArray(mcpServers.id, order));
    rows.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    return { rows, total };
  }

  // Every order ends with the id: entries with the same name or count (the registry has many) then
  // keep one place, so a page never repeats one and no entry falls between two pages.
  const order: SQL[] =
    p.sort === "name"
      ? [sql`lower(${mcpServers.name})`, sql`${mcpServers.id}`]
      : p.sort === "newest"
        ? [desc(mcpServers.createdAt), sql`${mcpServers.id}`]
        : [sql`${users} desc`, sql`lower(${mcpServers.name})`, sql`${mcpServers.id}`];
  const rows = await db
    .select()
    .from(mcpServers)
    .where(where)
    .orderBy(...order)
    .limit(p.limit)
    .offset(p.offset);
  return { rows, total };
}

/** Up to `limit` approved servers: same category first, then shared tags, then use count. */
export async function relatedServers(db: Db, server: ServerRow, limit: number): Promise<ServerRow[]> {
  // One parameter (drizzle would spread a JS array into a list).
  const tags = sql`array(select jsonb_array_elements_text(${JSON.stringify(server.tags)}::jsonb))`;
  const approvedOther = and(eq(mcpServers.isApproved, true), sql`${mcpServers.id} <> ${server.id}`);
  const sameCategory = eq(mcpServers.category, server.category);
  const shared = sql`${mcpServers.tags} && ${tags}`;
  // Each step is an index-backed top-N; together they keep the detail page cheap at any size.
  const steps = [and(approvedOther, sameCategory, shared), and(approvedOther, sameCategory), and(approvedOther, shared)];
  const out: ServerRow[] = [];
  for (const where of steps) {
    if (out.length >= limit) break;
    const taken = out.map((r) => r.id);
    const rows = await db
      .select()
      .from(mcpServers)
      .where(taken.length ? and(where, sql`${mcpServers.id} not in ${taken}`) : where)
      .orderBy(desc(mcpServers.recentUsers), mcpServers.id)
      .limit(limit - out.length);
    out.push(...rows);
  }
  return out;
}
