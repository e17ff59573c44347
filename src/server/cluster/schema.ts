// Several processes on one database (docs/operations.md): the runner machines and their
// heartbeats, rate-limit windows shared by every web process, and periodic jobs that must run
// once per cluster rather than once per process.
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { SandboxInfo } from "../../shared/deployments.js";

/** A process with the runner role: where gateways reach it, how much memory it offers deployments, and when it last said it was alive. */
export const runners = pgTable("runners", {
  /** RUNNER_NAME: stable across restarts (a StatefulSet pod's name, the machine's host name) */
  id: text("id").primaryKey(),
  /** the process that holds this name now (random per start): a second process with the same name cannot run its deployments */
  instance: text("instance").notNull().default(""),
  /** RUNNER_URL: the internal address gateways forward MCP traffic to (never a public entry) */
  url: text("url").notNull(),
  /** RUNNER_CAPACITY_MB: memory offered to deployments (each reserves DEPLOY_MEMORY_MB) */
  capacityMb: integer("capacity_mb").notNull(),
  /** what isolates deployments there (SandboxInfo), shown to admins and deciding who may deploy */
  sandbox: jsonb("sandbox").$type<SandboxInfo>().notNull(),
  /** set by a clean stop: it takes no new deployments and hands its own over */
  draining: boolean("draining").notNull().default(false),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Fixed-window counters shared by every web process (sign-in, sign-up, reset, OAuth registration). */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    count: integer("count").notNull(),
    resetAt: timestamp("reset_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("rate_limits_reset_idx").on(t.resetAt)],
);

/** A periodic job's last run: a process runs it only if it wins the row for this interval. */
export const clusterJobs = pgTable("cluster_jobs", {
  name: text("name").primaryKey(),
  lastRunAt: timestamp("last_run_at", { withTimezone: true }).notNull(),
  /** which process ran it last (host:pid), for operators */
  ranBy: text("ran_by"),
  /** spare: a counter some jobs keep */
  runs: bigint("runs", { mode: "number" }).notNull().default(0),
});
