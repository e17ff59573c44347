// The catalogue's tables: its entries and what submitters still see of the rejected ones
// (features/catalog/repo.ts, review-repo.ts).
import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.js";

// MCP server record (catalogue entries, docs/product.md#catalogue). The search columns (search_doc,
// search_text) and their indexes are added by a hand-written migration (0003_catalog_search), as is
// index_xid, the transaction that last changed what the search index holds (0022_index_xid).
export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    category: text("category").notNull(),
    type: text("type").notNull(),
    source: text("source").notNull(),
    url: text("url"),
    tags: text("tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    repositoryUrl: text("repository_url"),
    homepage: text("homepage"),
    documentation: text("documentation"),
    npxCommand: text("npx_command"),
    logo: text("logo"),
    requiredKeys: jsonb("required_keys").$type<{ key: string; env_var: string; description: string }[] | null>(),
    isApproved: boolean("is_approved").notNull().default(false),
    submittedBy: text("submitted_by").references(() => user.id, { onDelete: "set null" }),
    registryName: text("registry_name").unique(),
    version: text("version"),
    packages: jsonb("packages"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** MCP requests the gateway forwarded for it, all deployments together (exact; not public: one user can add any number) */
    useCount: integer("use_count").notNull().default(0),
    /** distinct users who called it in the last 30 days: its public popularity ('Most used', useCount in the API) */
    recentUsers: integer("recent_users").notNull().default(0),
    /** the registry it is kept in step with (REGISTRY_SYNC_URL), or null: a local or file-imported entry */
    upstream: text("upstream"),
    /** the upstream's status of the version it has: active, deprecated or deleted */
    upstreamStatus: text("upstream_status"),
    /** the upstream's server.json as last received ('Take upstream' applies it again) */
    upstreamDoc: jsonb("upstream_doc"),
    /** when the upstream's last change to it arrived */
    upstreamUpdatedAt: timestamp("upstream_updated_at", { withTimezone: true }),
    /** an admin edited it here: the sync keeps those edits until an admin takes upstream again */
    localEdits: boolean("local_edits").notNull().default(false),
    /** deleted upstream: unlisted, never deleted (deployments of it keep working and say so) */
    withdrawnAt: timestamp("withdrawn_at", { withTimezone: true }),
    /**
     * an admin's decision on a synced entry that the registry must not undo: 'unapproved' (a
     * return from deleted leaves it pending) or 'rejected' (withdrawn here for good, never listed again by the sync)
     */
    adminHold: text("admin_hold"),
    /** the platform's last check of it (catalog_listings.outcome, kept here for the directory's 'Works here' filter) */
    checkOutcome: text("check_outcome"),
    /**
     * the command the platform's own demo catalogue gave it (seedCatalogIfEmpty, its one writer):
     * while the entry still runs exactly that command it is trusted, so the platform checks it after
     * start-up and its checks' listings are public without an admin (deployments/checks/seed-checks.ts).
     * No submission, import, sync or edit writes it; one that changes the command ends the trust.
     */
    seedCommand: text("seed_command"),
  },
  (t) => [
    index("mcp_servers_approved_category_idx").on(t.isApproved, t.category),
    index("mcp_servers_approved_use_idx").on(t.isApproved, t.recentUsers),
    index("mcp_servers_approved_created_idx").on(t.isApproved, t.createdAt),
    index("mcp_servers_approved_name_idx").on(t.isApproved, t.name),
    index("mcp_servers_approved_category_use_idx").on(t.isApproved, t.category, t.recentUsers),
    index("mcp_servers_tags_idx").using("gin", t.tags),
    // Registry names are matched without case (the sync's collisions).
    index("mcp_servers_registry_name_lower_idx").on(sql`lower(${t.registryName})`),
  ],
);

/**
 * Submissions an admin rejected: the entry itself is deleted (its id is free again), and this is
 * what its submitter still sees of it on 'My submissions'. Goes with the submitter's account.
 */
export const rejectedSubmissions = pgTable(
  "rejected_submissions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    serverId: text("server_id").notNull(),
    name: text("name").notNull(),
    submittedBy: text("submitted_by")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    submittedAt: timestamp("submitted_at", { withTimezone: true }).notNull(),
    rejectedAt: timestamp("rejected_at", { withTimezone: true }).notNull().defaultNow(),
    /** the admin's reason, when they gave one (also e-mailed to the submitter) */
    reason: text("reason"),
  },
  (t) => [index("rejected_submissions_user_idx").on(t.submittedBy, t.rejectedAt)],
);

/**
 * The registry sync's state, one row per upstream (features/registry-api/sync.ts): where the next
 * run starts (`updated_since`), what the last run did, and the entries it skipped with their reasons.
 */
export const registrySync = pgTable("registry_sync", {
  upstream: text("upstream").primaryKey(),
  /** the upstream's latest updatedAt taken in a complete run: the next run asks for changes since */
  watermark: text("watermark"),
  /** running, ok or failed */
  status: text("status").notNull().default("ok"),
  startedAt: timestamp("started_at", { withTimezone: true }),
  /** the running run's last report: one silent for 30 minutes has died with its process */
  beatAt: timestamp("beat_at", { withTimezone: true }),
  finishedAt: timestamp("finished_at", { withTimezone: true }),
  lastOkAt: timestamp("last_ok_at", { withTimezone: true }),
  error: text("error"),
  /** pages and entries so far (running) or in the last run */
  progress: jsonb("progress").$type<{ pages: number; entries: number }>().notNull().default({ pages: 0, entries: 0 }),
  counts: jsonb("counts").$type<Record<string, number>>().notNull().default({}),
  skipped: jsonb("skipped").$type<Array<{ name: string; reason: string }>>().notNull().default([]),
  runs: integer("runs").notNull().default(0),
});

/**
 * What an entry's popularity (recent_users) was before each change, for an hour: a directory
 * listing paged with a cursor keeps the order it started with while counts move (search-repo.ts).
 * Written by a trigger on mcp_servers (migration 0020), trimmed by the popularity slide.
 */
export const popularityChanges = pgTable(
  "popularity_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    serverId: text("server_id").notNull(),
    changedAt: timestamp("changed_at", { withTimezone: true })
      .notNull()
      .default(sql`clock_timestamp()`),
    oldUsers: integer("old_users").notNull(),
  },
  (t) => [index("popularity_changes_at_idx").on(t.changedAt)],
);
