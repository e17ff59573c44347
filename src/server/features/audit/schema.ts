// The audit log (docs/product.md#audit-log): who did what to what, when and from where. Rows are
// only ever added: a trigger (migration 0030) refuses every UPDATE, and every DELETE but the
// retention trim's (features/audit/repo.ts trimAudit, which says so for its transaction).
import { bigserial, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** who: a user's id (null: the site itself, e.g. a job) */
    actorId: text("actor_id"),
    /** their username then (kept as it was, so a renamed or deleted account still reads) */
    actorName: text("actor_name").notNull().default(""),
    /** how: session, api_key */
    via: text("via").notNull().default("session"),
    /** the organisation it happened in, if any */
    orgId: text("org_id"),
    /** what: the route's action from http/route-policy.ts, e.g. deployment.deploy */
    action: text("action").notNull(),
    /** to what: a kind and a name ('deployment', 'catalog:context7') */
    targetKind: text("target_kind").notNull().default(""),
    target: text("target").notNull().default(""),
    /** what else is safe to keep: names, never secret values */
    detail: jsonb("detail").$type<Record<string, unknown>>().notNull().default({}),
    /** from where: the client's address */
    ip: text("ip").notNull().default(""),
  },
  (t) => [
    index("audit_log_actor_idx").on(t.actorId, t.id),
    index("audit_log_org_idx").on(t.orgId, t.id),
    index("audit_log_at_idx").on(t.at),
  ],
);
