// The SQL pieces the directory's queries share (search-repo.ts, asof-repo.ts): what a search asks
// for, its words as a tsquery, its filters, and the popularity it orders by.
import { eq, sql, type SQL } from "drizzle-orm";
import { mcpServers } from "../../db/schema.js";

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
  /**
   * The last entries of a cursor's previous page, its last first: the page goes on after the first
   * of them still there, wherever it now is, so entries added or removed meanwhile shift nothing
   * (`offset` is the fallback when all are gone).
   */
  after?: string[];
  /** the name and count the first of `after` had on its page: its place, whatever became of it since */
  afterKey?: { name: string; users: number };
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

/** The filters every listing applies, as SQL. */
export function filtersOf(p: SearchParams): SQL[] {
  const base: SQL[] = [eq(mcpServers.isApproved, true)];
  if (p.category) base.push(eq(mcpServers.category, p.category));
  if (p.type) base.push(eq(mcpServers.type, p.type));
  if (p.works) base.push(eq(mcpServers.checkOutcome, "works"));
  return base;
}

/** recent_users, or its value as of a cursor's start for the entries that changed since. */
/**
 * An entry anyone may see: listed, or withdrawn by its registry (unlisted, its page kept for whoever
 * deployed it). Never a pending one, nor one an admin took off the list or rejected.
 */
export const seenByAll = (): SQL =>
  sql`(${mcpServers.isApproved} or (${mcpServers.withdrawnAt} is not null and ${mcpServers.adminHold} is null))`;

export function usersOf(asOf: ReadonlyMap<string, number> | undefined): SQL {
  if (!asOf?.size) return sql`${mcpServers.recentUsers}`;
  return sql`coalesce((${JSON.stringify(Object.fromEntries(asOf))}::jsonb ->> ${mcpServers.id})::int, ${mcpServers.recentUsers})`;
}
