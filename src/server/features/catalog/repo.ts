import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { catalogListings, mcpServers, profiles, rejectedSubmissions } from "../../db/schema.js";
import { SEARCH_COUNT_CAP } from "../../../shared/catalog.js";
import { invalidateCatalog } from "./cache.js";

export type ServerRow = typeof mcpServers.$inferSelect;
export type NewServerRow = typeof mcpServers.$inferInsert;

export interface SearchParams {
  q?: string;
  category?: string;
  type?: string;
  sort?: "relevance" | "popular" | "newest" | "name";
  limit: number;
  offset: number;
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

  if (q && tsq && (p.sort ?? "relevance") === "relevance") {
    const query = sql`to_tsquery('simple', ${tsq})`;
    const window = Math.max(RELEVANCE_CANDIDATES, p.offset + p.limit);
    const ids = await db.execute<{ id: string }>(sql`
      select id from (
        select id, search_doc, search_text, recent_users from ${mcpServers} where ${where}
        order by recent_users desc limit ${window}
      ) c
      order by ts_rank_cd(search_doc, ${query}) * 4 + word_similarity(${q}, search_text) desc, recent_users desc, id
      limit ${p.limit} offset ${p.offset}`);
    const order = ids.rows.map((r) => r.id);
    if (order.length === 0) return { rows: [], total };
    const rows = await db.select().from(mcpServers).where(inArray(mcpServers.id, order));
    rows.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    return { rows, total };
  }

  const order: SQL[] =
    p.sort === "name"
      ? [sql`lower(${mcpServers.name})`, sql`${mcpServers.id}`]
      : p.sort === "newest"
        ? [desc(mcpServers.createdAt), sql`${mcpServers.id}`]
        : [desc(mcpServers.recentUsers), sql`lower(${mcpServers.name})`];
  const rows = await db
    .select()
    .from(mcpServers)
    .where(where)
    .orderBy(...order)
    .limit(p.limit)
    .offset(p.offset);
  return { rows, total };
}

export async function findServer(db: Db, id: string): Promise<ServerRow | undefined> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id));
  return row;
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

export async function countServers(db: Db): Promise<number> {
  const [r] = await db.select({ n: sql<number>`count(*)::int` }).from(mcpServers);
  return r?.n ?? 0;
}

export async function insertServers(db: Db, rows: NewServerRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db.insert(mcpServers).values(rows).onConflictDoNothing().returning({ id: mcpServers.id });
  invalidateCatalog(db);
  return inserted.length;
}

export type InsertResult = { ok: true; row: ServerRow } | { ok: false; reason: "duplicate" };

export async function insertSubmission(db: Db, row: NewServerRow): Promise<InsertResult> {
  const rows = await db.insert(mcpServers).values(row).onConflictDoNothing({ target: mcpServers.id }).returning();
  invalidateCatalog(db);
  return rows[0] ? { ok: true, row: rows[0] } : { ok: false, reason: "duplicate" };
}

export interface AdminRow extends ServerRow {
  submitterUsername: string | null;
  submitterEmail: string | null;
  /** its public (approved) listing and the latest check's candidate, and how its last check went */
  approvedListing: unknown;
  candidateListing: unknown;
  checkStatus: string | null;
  checkDetail: string | null;
}

/** Admin lists join the submitter's profile, newest first. */
export async function listForAdmin(db: Db, approved: boolean, limit: number): Promise<AdminRow[]> {
  const rows = await db
    .select({
      s: mcpServers,
      username: profiles.username,
      email: profiles.email,
      approved: catalogListings.approved,
      candidate: catalogListings.candidate,
      checkStatus: catalogListings.checkStatus,
      checkDetail: catalogListings.checkDetail,
    })
    .from(mcpServers)
    .leftJoin(profiles, eq(profiles.id, mcpServers.submittedBy))
    .leftJoin(catalogListings, eq(catalogListings.serverId, mcpServers.id))
    .where(eq(mcpServers.isApproved, approved))
    .orderBy(desc(mcpServers.createdAt), mcpServers.id)
    .limit(limit);
  return rows.map((r) => ({
    ...r.s,
    submitterUsername: r.username,
    submitterEmail: r.email,
    approvedListing: r.approved,
    candidateListing: r.candidate,
    checkStatus: r.checkStatus,
    checkDetail: r.checkDetail,
  }));
}

export async function countByApproval(db: Db): Promise<{ pending: number; approved: number }> {
  const rows = await db
    .select({ approved: mcpServers.isApproved, n: sql<number>`count(*)::int` })
    .from(mcpServers)
    .groupBy(mcpServers.isApproved);
  return {
    pending: rows.find((r) => !r.approved)?.n ?? 0,
    approved: rows.find((r) => r.approved)?.n ?? 0,
  };
}

export async function setApproval(db: Db, id: string, approved: boolean): Promise<ServerRow | undefined> {
  const [row] = await db
    .update(mcpServers)
    .set({ isApproved: approved, updatedAt: new Date() })
    .where(and(eq(mcpServers.id, id), eq(mcpServers.isApproved, !approved)))
    .returning();
  invalidateCatalog(db);
  return row;
}

/** Reject: only a pending entry is deleted. */
/** A rejection: the pending entry goes and its submitter keeps a line of it (My submissions), together. */
export async function deletePending(db: Db, id: string): Promise<boolean> {
  const gone = await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(mcpServers)
      .where(and(eq(mcpServers.id, id), eq(mcpServers.isApproved, false)))
      .returning({ id: mcpServers.id, name: mcpServers.name, submittedBy: mcpServers.submittedBy, createdAt: mcpServers.createdAt });
    if (row?.submittedBy)
      await tx
        .insert(rejectedSubmissions)
        .values({ serverId: row.id, name: row.name, submittedBy: row.submittedBy, submittedAt: row.createdAt });
    return row !== undefined;
  });
  invalidateCatalog(db);
  return gone;
}

export interface SubmissionLine {
  id: string;
  name: string;
  status: "pending" | "approved" | "rejected";
  submittedAt: Date;
  /** when it was approved (its last change) or rejected */
  decidedAt: Date | null;
}

/** A submitter's entries, newest first: pending and approved ones as they are, rejected ones as they were (at most `limit` of each). */
export async function submissionsOf(db: Db, userId: string, limit = 200): Promise<SubmissionLine[]> {
  const [live, rejected] = await Promise.all([
    db
      .select({
        id: mcpServers.id,
        name: mcpServers.name,
        approved: mcpServers.isApproved,
        createdAt: mcpServers.createdAt,
        updatedAt: mcpServers.updatedAt,
      })
      .from(mcpServers)
      .where(eq(mcpServers.submittedBy, userId))
      .orderBy(desc(mcpServers.createdAt))
      .limit(limit),
    db
      .select()
      .from(rejectedSubmissions)
      .where(eq(rejectedSubmissions.submittedBy, userId))
      .orderBy(desc(rejectedSubmissions.rejectedAt))
      .limit(limit),
  ]);
  const lines: SubmissionLine[] = [
    ...live.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.approved ? ("approved" as const) : ("pending" as const),
      submittedAt: r.createdAt,
      decidedAt: r.approved ? r.updatedAt : null,
    })),
    ...rejected.map((r) => ({
      id: r.serverId,
      name: r.name,
      status: "rejected" as const,
      submittedAt: r.submittedAt,
      decidedAt: r.rejectedAt,
    })),
  ];
  return lines.sort((a, b) => b.submittedAt.getTime() - a.submittedAt.getTime());
}

/** Import writes run inside the importer's per-entry transaction; it clears the cache once at the end. */
export async function insertImported(db: Db, row: NewServerRow): Promise<void> {
  await db.insert(mcpServers).values(row);
}

export async function updateImported(db: Db, id: string, changes: Partial<NewServerRow>): Promise<void> {
  await db
    .update(mcpServers)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(mcpServers.id, id));
}

export interface RegistryListParams {
  after?: string;
  limit: number;
  search?: string;
  updatedSince?: Date;
  version?: string;
}

/** Approved entries in registry-name order, for cursor pagination. */
export async function listByRegistryName(db: Db, p: RegistryListParams): Promise<ServerRow[]> {
  const conds: SQL[] = [eq(mcpServers.isApproved, true), sql`${mcpServers.registryName} is not null`];
  if (p.after) conds.push(sql`${mcpServers.registryName} > ${p.after}`);
  if (p.search) {
    const like = `%${p.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(sql`(lower(${mcpServers.registryName}) like ${like} or lower(${mcpServers.name}) like ${like})`);
  }
  if (p.updatedSince) conds.push(sql`${mcpServers.updatedAt} > ${p.updatedSince.toISOString()}`);
  if (p.version) conds.push(sql`coalesce(${mcpServers.version}, '1.0.0') = ${p.version}`);
  return db
    .select()
    .from(mcpServers)
    .where(and(...conds))
    .orderBy(mcpServers.registryName)
    .limit(p.limit);
}

export async function findByRegistryName(db: Db, name: string): Promise<ServerRow | undefined> {
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.registryName, name), eq(mcpServers.isApproved, true)));
  return row;
}

/** Entries created before registry names existed get `<namespace>/<id>`. */
export async function assignRegistryNames(db: Db, namespace: string): Promise<number> {
  const rows = await db
    .update(mcpServers)
    .set({ registryName: sql`${namespace} || '/' || ${mcpServers.id}` })
    .where(sql`${mcpServers.registryName} is null`)
    .returning({ id: mcpServers.id });
  invalidateCatalog(db);
  return rows.length;
}

export async function findByRegistryNameAny(db: Db, name: string): Promise<ServerRow | undefined> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.registryName, name));
  return row;
}
