import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { mcpServers, profiles } from "../../db/schema.js";

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

// Words of the query as prefix terms ('postgre' finds 'postgres'): only letters and digits reach to_tsquery.
export function prefixQuery(q: string): string | null {
  const words = q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .slice(0, 8);
  return words.length ? words.map((w) => `${w}:*`).join(" & ") : null;
}

const TRGM_THRESHOLD = 0.45;

/** Approved entries matching the filters, one page, with the total. */
export async function searchServers(db: Db, p: SearchParams): Promise<{ rows: ServerRow[]; total: number }> {
  const conds: SQL[] = [eq(mcpServers.isApproved, true)];
  if (p.category) conds.push(eq(mcpServers.category, p.category));
  if (p.type) conds.push(eq(mcpServers.type, p.type));
  const q = p.q?.trim().toLowerCase();
  const tsq = q ? prefixQuery(q) : null;
  let rank: SQL | undefined;
  if (q && tsq) {
    const query = sql`to_tsquery('simple', ${tsq})`;
    // Full-text prefix match, or a close spelling of a word in the name, id or tags (typos).
    conds.push(sql`(search_doc @@ ${query} OR ${q} <% search_text)`);
    rank = sql`(ts_rank_cd(search_doc, ${query}) * 4 + word_similarity(${q}, search_text))`;
  }
  const order: SQL[] =
    p.sort === "name"
      ? [sql`lower(${mcpServers.name})`, sql`${mcpServers.id}`]
      : p.sort === "newest"
        ? [desc(mcpServers.createdAt), sql`${mcpServers.id}`]
        : p.sort === "popular" || !rank
          ? [desc(mcpServers.useCount), sql`lower(${mcpServers.name})`]
          : [sql`${rank} desc`, desc(mcpServers.useCount), sql`${mcpServers.id}`];

  return db.transaction(async (tx) => {
    if (q) await tx.execute(sql`select set_config('pg_trgm.word_similarity_threshold', ${String(TRGM_THRESHOLD)}, true)`);
    const where = and(...conds);
    const [rows, [count]] = await Promise.all([
      tx.select().from(mcpServers).where(where).orderBy(...order).limit(p.limit).offset(p.offset),
      tx.select({ n: sql<number>`count(*)::int` }).from(mcpServers).where(where),
    ]);
    return { rows, total: count?.n ?? 0 };
  });
}

export async function findServer(db: Db, id: string): Promise<ServerRow | undefined> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id));
  return row;
}

/** Up to `limit` approved servers: same category first, then shared tags, then use count. */
export async function relatedServers(db: Db, server: ServerRow, limit: number): Promise<ServerRow[]> {
  // One parameter (drizzle would spread a JS array into a list).
  const tags = sql`array(select jsonb_array_elements_text(${JSON.stringify(server.tags)}::jsonb))`;
  return db
    .select()
    .from(mcpServers)
    .where(
      and(
        eq(mcpServers.isApproved, true),
        sql`${mcpServers.id} <> ${server.id}`,
        sql`(${mcpServers.category} = ${server.category} OR ${mcpServers.tags} && ${tags})`,
      ),
    )
    .orderBy(
      sql`(${mcpServers.category} = ${server.category}) desc`,
      sql`cardinality(array(select unnest(${mcpServers.tags}) intersect select unnest(${tags}))) desc`,
      desc(mcpServers.useCount),
      mcpServers.id,
    )
    .limit(limit);
}

export async function countServers(db: Db): Promise<number> {
  const [r] = await db.select({ n: sql<number>`count(*)::int` }).from(mcpServers);
  return r?.n ?? 0;
}

export async function insertServers(db: Db, rows: NewServerRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db.insert(mcpServers).values(rows).onConflictDoNothing().returning({ id: mcpServers.id });
  return inserted.length;
}

export type InsertResult = { ok: true; row: ServerRow } | { ok: false; reason: "duplicate" };

export async function insertSubmission(db: Db, row: NewServerRow): Promise<InsertResult> {
  const rows = await db.insert(mcpServers).values(row).onConflictDoNothing({ target: mcpServers.id }).returning();
  return rows[0] ? { ok: true, row: rows[0] } : { ok: false, reason: "duplicate" };
}

export interface AdminRow extends ServerRow {
  submitterUsername: string | null;
  submitterEmail: string | null;
}

/** Admin lists join the submitter's profile, newest first (spec section 7). */
export async function listForAdmin(db: Db, approved: boolean, limit: number): Promise<AdminRow[]> {
  const rows = await db
    .select({ s: mcpServers, username: profiles.username, email: profiles.email })
    .from(mcpServers)
    .leftJoin(profiles, eq(profiles.id, mcpServers.submittedBy))
    .where(eq(mcpServers.isApproved, approved))
    .orderBy(desc(mcpServers.createdAt), mcpServers.id)
    .limit(limit);
  return rows.map((r) => ({ ...r.s, submitterUsername: r.username, submitterEmail: r.email }));
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
  return row;
}

/** Reject: only a pending entry is deleted. */
export async function deletePending(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .delete(mcpServers)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.isApproved, false)))
    .returning({ id: mcpServers.id });
  return rows.length > 0;
}
