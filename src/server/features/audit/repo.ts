// The audit log's SQL: rows are added and read, never changed; only the retention trim deletes,
// and says so to the table's guard for its own transaction (migration 0030).
import { and, desc, eq, gte, inArray, like, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.js";
import { auditLog } from "../../db/schema.js";

export type AuditInsert = typeof auditLog.$inferInsert;
export type AuditRow = typeof auditLog.$inferSelect;

export async function recordAudit(db: DbOrTx, rows: AuditInsert | AuditInsert[]): Promise<void> {
  const list = Array.isArray(rows) ? rows : [rows];
  if (list.length) await db.insert(auditLog).values(list);
}

export interface AuditFilter {
  /** whose rows: a person's own (as actor), organisations', or everything (undefined) */
  actorId?: string;
  orgIds?: string[];
  action?: string;
  actorName?: string;
  from?: Date;
  to?: Date;
  before?: number;
  limit: number;
}

export async function queryAudit(db: DbOrTx, f: AuditFilter): Promise<AuditRow[]> {
  const where: SQL[] = [];
  if (f.actorId !== undefined && f.orgIds !== undefined)
    where.push(or(eq(auditLog.actorId, f.actorId), inArray(auditLog.orgId, f.orgIds))!);
  else if (f.actorId !== undefined) where.push(eq(auditLog.actorId, f.actorId));
  else if (f.orgIds !== undefined) where.push(f.orgIds.length ? inArray(auditLog.orgId, f.orgIds) : sql`false`);
  if (f.action) {
    // 'member.*': every member action; otherwise the action as written
    if (f.action.endsWith("*")) where.push(like(auditLog.action, `${f.action.slice(0, -1).replace(/[%_\\]/g, "\\$&")}%`));
    else where.push(eq(auditLog.action, f.action));
  }
  if (f.actorName) where.push(sql`lower(${auditLog.actorName}) = lower(${f.actorName})`);
  if (f.from) where.push(gte(auditLog.at, f.from));
  if (f.to) where.push(lt(auditLog.at, f.to));
  if (f.before) where.push(lt(auditLog.id, f.before));
  return db
    .select()
    .from(auditLog)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(f.limit);
}

/**
 * Removes rows past their retention: `days`, or `proDays` for what Pro owners did (`pro`: their
 * ids). The table's guard lets only this transaction delete.
 */
export async function trimAudit(db: Db, r: { days: number; proDays?: number; pro?: string[] }): Promise<number> {
  const proDays = Math.max(r.days, r.proDays ?? r.days);
  const pro = r.pro ?? [];
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('switchboard.audit_trim', 'on', true)`);
    const older = (d: number) => sql`${auditLog.at} < now() - make_interval(days => ${d})`;
    const gone = await tx.execute(
      pro.length
        ? sql`delete from ${auditLog} where ${older(proDays)} or (${older(r.days)} and (${auditLog.actorId} is null or not (${inArray(auditLog.actorId, pro)})))`
        : sql`delete from ${auditLog} where ${older(r.days)}`,
    );
    return gone.rowCount ?? 0;
  });
}
