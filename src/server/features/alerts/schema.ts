// Alerts for Pro deployments (docs/observability.md#alerts): what each owner chose to be told of,
// and every alert raised, open until what raised it clears.
import { sql } from "drizzle-orm";
import { bigserial, boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { deployments } from "../deployments/schema.js";

/** One row per deployment whose owner saved a choice; none: e-mail on, no thresholds. */
export const alertSettings = pgTable(
  "alert_settings",
  {
    deploymentId: text("deployment_id")
      .primaryKey()
      .references(() => deployments.id, { onDelete: "cascade" }),
    /** alerts go to the owner's e-mail address (off: they are only listed on the page) */
    email: boolean("email").notNull().default(true),
    /** alert when at least this share (percent) of the window's requests fail; null: never */
    errorRatePct: integer("error_rate_pct"),
    /** alert when the window's p95 latency reaches this many ms; null: never */
    p95Ms: integer("p95_ms"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("alert_settings_error_rate_check", sql`${t.errorRatePct} between 1 and 100`),
    check("alert_settings_p95_check", sql`${t.p95Ms} between 1 and 600000`),
  ],
);

/** An alert: open (resolved_at null) while its condition holds; at most one open per kind and deployment. */
export const deploymentAlerts = pgTable(
  "deployment_alerts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deploymentId: text("deployment_id")
      .notNull()
      .references(() => deployments.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"crash_loop" | "start_failed" | "error_rate" | "latency" | "definitions" | "test">().notNull(),
    message: text("message").notNull(),
    openedAt: timestamp("opened_at", { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    /** what became of its e-mail: sent, failed, off (the owner turned e-mail off), throttled (too many this hour) */
    email: text("email").$type<"pending" | "sent" | "failed" | "off" | "throttled">().notNull().default("pending"),
  },
  (t) => [
    check("deployment_alerts_kind_check", sql`${t.kind} in ('crash_loop', 'start_failed', 'error_rate', 'latency', 'definitions', 'test')`),
    check("deployment_alerts_email_check", sql`${t.email} in ('pending', 'sent', 'failed', 'off', 'throttled')`),
    uniqueIndex("deployment_alerts_open_idx")
      .on(t.deploymentId, t.kind)
      .where(sql`${t.resolvedAt} is null`),
    index("deployment_alerts_deployment_idx").on(t.deploymentId, t.openedAt.desc()),
    // The sweep's clean-up of old resolved alerts walks this, not the whole table.
    index("deployment_alerts_resolved_idx")
      .on(t.resolvedAt)
      .where(sql`${t.resolvedAt} is not null`),
  ],
);
