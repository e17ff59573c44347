// Hosting's tables (docs/hosting.md): deployments and their history, what they list (each deployment's
// own listing, a catalogue entry's approved one) and the definitions pinned per user and server.
import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { DeploymentStatus } from "~/shared/deployments.js";
import { user } from "../auth/schema.js";
import { mcpServers } from "../catalog/schema.js";

// Deployment. One running instance of a server for one user with that user's
// keys (docs/product.md#hosting). Stop Server deletes the row (its address stays, below);
// `deploy_actions` keeps the history that 'Total Deployments' counts.
export const deployments = pgTable(
  "deployments",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** 'catalog' (mcp_servers.id) or 'owned' (servers.qualified_name) */
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    /** what runs: { kind: 'npm', package, version, args } or { kind: 'git', url } */
    source: jsonb("source").notNull(),
    /** the user's keys, AES-256-GCM encrypted (features/deployments/secret-box.ts) */
    secrets: text("secrets").notNull(),
    /**
     * A connection's OAuth grant from its remote server (client registration, tokens, what
     * discovery found), sealed like `secrets`; the runner writes it back when it refreshes the tokens
     */
    upstreamGrant: text("upstream_grant"),
    status: text("status").$type<DeploymentStatus>().notNull().default("queued"),
    /** why it failed or crashed, for the owner */
    statusDetail: text("status_detail"),
    exitCode: integer("exit_code"),
    restarts: integer("restarts").notNull().default(0),
    proxyId: text("proxy_id").notNull().unique(),
    /** the process that runs it, with its start time so a recycled pid is never mistaken for it */
    pid: integer("pid"),
    pidStart: text("pid_start"),
    /** the runner it is placed on (runners.id); null while it waits for one with room */
    runnerId: text("runner_id"),
    /** fencing number of the placement (docs/glossary.md#fencing) */
    fence: bigint("fence", { mode: "number" }).notNull().default(0),
    startedAt: timestamp("started_at", { withTimezone: true }),
    /** the last request or open stream it served, written by its runner every few seconds (sleeping, LRU) */
    lastActiveAt: timestamp("last_active_at", { withTimezone: true }),
    /** its owner turned sleeping off for it (Pro): it runs while idle */
    keepAwake: boolean("keep_awake").notNull().default(false),
    /** while sleeping: the runner it slept on, where its volume is (a wake prefers it) */
    sleptOn: text("slept_on"),
    /** tool names the owner chose not to expose: absent from listings and refused if called (features/gateway) */
    hiddenTools: text("hidden_tools")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("deployments_user_server_idx").on(t.userId, t.serverKind, t.serverRef),
    index("deployments_server_idx").on(t.serverKind, t.serverRef),
    index("deployments_runner_idx").on(t.runnerId),
  ],
);

// A deployment's address (docs/product.md#stable-urls): the proxy id a user's deployments of one
// server are reached at. It outlives the deployment: Stop ends the deployment, and deploying the
// same server again takes the same address, so clients configured with its URL carry on.
export const deploymentAddresses = pgTable(
  "deployment_addresses",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    proxyId: text("proxy_id").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.serverKind, t.serverRef] })],
);

export const deployActions = pgTable(
  "deploy_actions",
  {
    id: serial("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("deploy_actions_user_idx").on(t.userId, t.createdAt), index("deploy_actions_server_idx").on(t.serverKind, t.serverRef)],
);

// Pinned definitions (docs/gateway.md#pinned-definitions): a user's deployments of a server have
// their tools, prompts and resource templates pinned at first listing. A definition that changes
// later (or a new one) is withheld from clients until the owner approves it. Kept per user and
// server, not per deployment row, so stopping and deploying a new version compares with the pins.
export const definitionReviews = pgTable(
  "definition_reviews",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    /** the kinds (tool, prompt, resource_template) pinned so far: a kind is pinned by its first listing */
    pinnedKinds: text("pinned_kinds")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** 'warn only': changes are exposed at once and shown to the owner, not withheld */
    warnOnly: boolean("warn_only").notNull().default(false),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.serverKind, t.serverRef] })],
);

export const definitionPins = pgTable(
  "definition_pins",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    /** tool | prompt | resource_template */
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    /** the approved definition (null: never approved, a new one) */
    approved: jsonb("approved"),
    approvedHash: text("approved_hash"),
    /** the definition the server listed last (null: its last full listing left it out) */
    current: jsonb("current"),
    currentHash: text("current_hash"),
    /** the definition the owner rejected last: stays withheld, even in 'warn only' */
    rejectedHash: text("rejected_hash"),
    changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.serverKind, t.serverRef, t.kind, t.name] })],
);

// What an owned server offers, from the last successful MCP listing of its owner's deployment
// (its page is its owner's publication, like its description). Catalogue entries: catalog_listings.
export const serverCapabilities = pgTable(
  "server_capabilities",
  {
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    tools: jsonb("tools").notNull(),
    prompts: jsonb("prompts").notNull(),
    resources: jsonb("resources").notNull(),
    listedAt: timestamp("listed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("server_capabilities_server_idx").on(t.serverKind, t.serverRef)],
);

/** What one deployment listed at its last start: its owner's view (their page, the playground). */
export const deploymentListings = pgTable("deployment_listings", {
  deploymentId: text("deployment_id")
    .primaryKey()
    .references(() => deployments.id, { onDelete: "cascade" }),
  tools: jsonb("tools").notNull(),
  prompts: jsonb("prompts").notNull(),
  resources: jsonb("resources").notNull(),
  listedAt: timestamp("listed_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A catalogue entry's public listing (docs/product.md#trusted-listings): only ever one an admin
 * approved, taken from a run the platform made itself (a check, with placeholder keys under the
 * platform's own account). The latest check's listing waits as the candidate until approved.
 */
export const catalogListings = pgTable("catalog_listings", {
  serverId: text("server_id")
    .primaryKey()
    .references(() => mcpServers.id, { onDelete: "cascade" }),
  /** { tools, prompts, resources } as approved; null: nothing public yet */
  approved: jsonb("approved"),
  approvedAt: timestamp("approved_at", { withTimezone: true }),
  /** the latest check's listing, when it differs from the approved one */
  candidate: jsonb("candidate"),
  candidateAt: timestamp("candidate_at", { withTimezone: true }),
  /** 'checking' while a check runs, 'failed' when the last one could not list */
  checkStatus: text("check_status"),
  /** when the check under way began: a remote check whose process went away is cleared after it overran */
  checkStartedAt: timestamp("check_started_at", { withTimezone: true }),
  checkDetail: text("check_detail"),
  checkedAt: timestamp("checked_at", { withTimezone: true }),
  /** how the last finished check went ('works here'): works, needs-keys, fails or cannot-run */
  outcome: text("outcome"),
  /** tools it listed (works) */
  outcomeTools: integer("outcome_tools"),
  /** why it failed, needs keys or cannot run */
  outcomeDetail: text("outcome_detail"),
});
