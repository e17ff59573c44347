// What deployments do (docs/observability.md): the owners' request log and the public per-tool
// figures. Both are written in batches by features/request-log/writer.ts, never on the request path.
import { sql } from "drizzle-orm";
import { bigserial, boolean, check, index, integer, pgTable, primaryKey, real, text, timestamp } from "drizzle-orm/pg-core";
import { deployments } from "../deployments/schema.js";

/**
 * One row per answered MCP request, for the deployment's owner. Arguments and results are never
 * stored: there is no column for them. Kept REQUEST_LOG_RETENTION_DAYS and at most
 * REQUEST_LOG_MAX_ROWS per deployment (features/request-log/service.ts).
 */
export const requestLog = pgTable(
  "request_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deploymentId: text("deployment_id")
      .notNull()
      .references(() => deployments.id, { onDelete: "cascade" }),
    at: timestamp("at", { withTimezone: true }).notNull(),
    clientName: text("client_name"),
    clientVersion: text("client_version"),
    method: text("method").notNull(),
    /** the tool or prompt name, or the resource URI */
    name: text("name"),
    durationMs: real("duration_ms").notNull(),
    outcome: text("outcome").$type<"ok" | "error" | "tool_error" | "cancelled" | "rate_limited">().notNull(),
    errorCode: integer("error_code"),
    bytesIn: integer("bytes_in").notNull(),
    bytesOut: integer("bytes_out").notNull(),
    transport: text("transport").notNull(),
    /** sent by the owner's playground (the page's sign-in, not a key or token): shown apart, never counted as use */
    playground: boolean("playground").notNull().default(false),
    /** this request woke the sleeping deployment: how long the wake took (ms) */
    wokeMs: integer("woke_ms"),
    /** the member who called an organisation's deployment (null: its owner, or a person's own deployment); no key is kept */
    callerId: text("caller_id"),
  },
  (t) => [
    check("request_log_outcome_check", sql`${t.outcome} in ('ok', 'error', 'tool_error', 'cancelled', 'rate_limited')`),
    // Newest first per deployment: the owner's page and the per-deployment trim both walk this.
    index("request_log_deployment_at_idx").on(t.deploymentId, t.at.desc(), t.id.desc()),
    // The retention sweep finds old rows, and recently active deployments, by time alone.
    index("request_log_at_idx").on(t.at),
  ],
);

/**
 * tools/call figures per server, tool, hour and deployment owner:
 * calls, errors (JSON-RPC errors and tool results with isError) and a latency histogram over
 * fixed bounds (features/request-log/histogram.ts). Kept 48 hours.
 */
export const toolStats = pgTable(
  "tool_stats",
  {
    /** 'catalog' (mcp_servers.id) or 'owned' (servers.qualified_name) */
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    tool: text("tool").notNull(),
    /** the deployment's owner: public figures weigh each user once (features/request-log/service.ts) */
    userId: text("user_id").notNull().default(""),
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    calls: integer("calls").notNull(),
    errors: integer("errors").notNull(),
    /** counts per latency bucket, in the order of LATENCY_BOUNDS_MS plus one for anything slower */
    buckets: integer("buckets").array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverKind, t.serverRef, t.tool, t.hour, t.userId] }), index("tool_stats_hour_idx").on(t.hour)],
);
