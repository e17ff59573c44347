// A catalogue entry's row: its types, reading one, counting them, and inserting entries (seed, submissions).
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { prepared, type Db } from "../../db/client.js";
import { mcpServers } from "../../db/schema.js";
import { invalidateCatalog } from "./cache.js";

export type ServerRow = typeof mcpServers.$inferSelect;
export type NewServerRow = typeof mcpServers.$inferInsert;

export async function findServer(db: Db, id: string): Promise<ServerRow | undefined> {
  const [row] = await prepared(db, "catalog_find_server", (d) =>
    d
      .select()
      .from(mcpServers)
      .where(eq(mcpServers.id, sql.placeholder("id")))
      .prepare("catalog_find_server"),
  ).execute({ id });
  return row;
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

/** Which of these entries their registry withdrew (deleted upstream). */
export async function withdrawnAmong(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: mcpServers.id })
    .from(mcpServers)
    .where(and(inArray(mcpServers.id, ids), isNotNull(mcpServers.withdrawnAt)));
  return rows.map((r) => r.id);
}
