import { ORG_TEXT } from "~/shared/orgs.js";
import { AUDIT_TEXT, type AuditEntry, type AuditPage, type AuditQuery } from "~/shared/audit.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { allows, orgIdsOf, roleBySlug } from "../orgs/service.js";
import { queryAudit, type AuditFilter, type AuditRow } from "./repo.js";

export { recordAudit } from "./repo.js";

// Who sees which rows (docs/product.md#audit-log): each person their own actions; an
// organisation's owners and admins its rows; the site's admins everything.

export interface AuditDeps {
  db: Db;
  /** AUDIT_RETENTION_DAYS: shown on the page */
  retentionDays: number;
}

/** Rows an export holds at most (newest first). */
export const EXPORT_MAX = 50_000;

export async function scopeFilter(db: Db, viewer: Viewer, scope: string | undefined): Promise<Pick<AuditFilter, "actorId" | "orgIds">> {
  if (!scope) return { actorId: viewer.id };
  if (scope === "all") {
    if (!viewer.isAdmin) throw new AppError("forbidden", AUDIT_TEXT.notAllowed);
    return {};
  }
  const { org, role } = await roleBySlug(db, scope, viewer.id);
  if (!org || role === null) throw new AppError("not_found", ORG_TEXT.notFound);
  if (!allows(role, "manage_members")) throw new AppError("forbidden", AUDIT_TEXT.notAllowed);
  return { orgIds: [org.id] };
}

function day(s: string | undefined, plus = 0): Date | undefined {
  if (!s) return undefined;
  const d = new Date(`${s}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + plus);
  return d;
}

export async function auditEntries(deps: AuditDeps, viewer: Viewer, q: AuditQuery, limit: number): Promise<AuditRow[]> {
  const scope = await scopeFilter(deps.db, viewer, q.scope);
  return queryAudit(deps.db, {
    ...scope,
    action: q.action || undefined,
    actorName: q.actor || undefined,
    from: day(q.from),
    // 'to' includes the day it names
    to: day(q.to, 1),
    before: q.before,
    limit,
  });
}

export async function auditPage(deps: AuditDeps, viewer: Viewer, q: AuditQuery): Promise<AuditPage> {
  const limit = q.limit ?? 50;
  const rows = await auditEntries(deps, viewer, q, limit + 1);
  const slugs = await orgSlugs(deps.db, viewer, rows);
  const entries = rows.slice(0, limit).map((r) => toEntry(r, slugs));
  return { entries, next: rows.length > limit ? entries[entries.length - 1]!.id : null, retention_days: deps.retentionDays };
}

/** The organisations' slugs to show beside their rows. */
export async function orgSlugs(db: Db, viewer: Viewer, rows: AuditRow[]): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  if (!rows.some((r) => r.orgId)) return m;
  for (const [id, slug] of await orgIdsOf(db, viewer.id)) m.set(id, slug);
  for (const r of rows) {
    if (r.orgId && !m.has(r.orgId)) {
      const slug = typeof r.detail?.org_slug === "string" ? r.detail.org_slug : r.orgId;
      m.set(r.orgId, slug);
    }
  }
  return m;
}

export function toEntry(r: AuditRow, slugs: Map<string, string>): AuditEntry {
  return {
    id: r.id,
    at: r.at.toISOString(),
    actor: r.actorName,
    actor_id: r.actorId,
    via: r.via,
    org: r.orgId ? (slugs.get(r.orgId) ?? r.orgId) : null,
    action: r.action,
    target_kind: r.targetKind,
    target: r.target,
    detail: r.detail ?? {},
    ip: r.ip,
  };
}

const CSV_COLUMNS = ["id", "at", "actor", "via", "org", "action", "target_kind", "target", "ip", "detail"] as const;

/** One CSV field: quoted when it must be, and never read as a formula by a spreadsheet. */
function csvField(v: unknown): string {
  let s = v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(",")}\r\n`;
}

export function csvLine(e: AuditEntry): string {
  return `${CSV_COLUMNS.map((k) => csvField(e[k])).join(",")}\r\n`;
}

export function jsonLine(e: AuditEntry): string {
  return `${JSON.stringify(e)}\n`;
}
