import { z } from "zod";

// The audit log (docs/product.md#audit-log): an append-only record of who did what to what, when
// and from where. Each user sees their own; an organisation's owners and admins see the
// organisation's; the site's admins see everything.

export const AUDIT_TEXT = {
  title: "Audit log",
  intro: "Who did what, when and from where. Entries are never changed or removed before their retention ends.",
  scopeLabel: "Whose",
  mine: "My actions",
  everything: "Everything (admin)",
  actionLabel: "Action",
  actorLabel: "Who",
  anyAction: "Any action",
  fromLabel: "From",
  toLabel: "To",
  filter: "Filter",
  exportCsv: "Export CSV",
  exportJsonl: "Export JSON Lines",
  none: "Nothing recorded yet for these filters.",
  older: "Older entries",
  newest: "Newest entries",
  loadFailed: "Failed to load the audit log. Please try again later.",
  notAllowed: "Only the organisation's owners and admins see its audit log",
  when: "When",
  what: "What",
  target: "Target",
  where: "From",
  details: "Details",
  dateInvalid: "Dates look like 2026-12-31",
  retention: (days: number) => `Entries are kept for ${days} days.`,
} as const;

export const auditEntry = z.object({
  id: z.number(),
  at: z.string(),
  actor: z.string(),
  actor_id: z.string().nullable(),
  via: z.string(),
  org: z.string().nullable(),
  action: z.string(),
  target_kind: z.string(),
  target: z.string(),
  detail: z.record(z.string(), z.unknown()),
  ip: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntry>;

export const auditPage = z.object({
  entries: z.array(auditEntry),
  /** pass as `before` for the next, older page; null: this is the last */
  next: z.number().nullable(),
  retention_days: z.number(),
});
export type AuditPage = z.infer<typeof auditPage>;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, AUDIT_TEXT.dateInvalid)
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), AUDIT_TEXT.dateInvalid);

export const auditQuery = z.object({
  /** an organisation's slug: its log (owners and admins); 'all': everything (site admins); absent: mine */
  scope: z.string().max(64).optional(),
  action: z
    .string()
    .max(64)
    .regex(/^[a-z_.*-]*$/)
    .optional(),
  actor: z.string().max(64).optional(),
  from: day.optional(),
  to: day.optional(),
  before: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  format: z.enum(["json", "csv", "jsonl"]).optional(),
});
export type AuditQuery = z.infer<typeof auditQuery>;
