import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const waitlist = pgTable(
  "waitlist",
  {
    id: serial("id").primaryKey(),
    email: text("email").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("waitlist_email_lower_idx").on(sql`lower(${t.email})`)],
);

// better-auth's tables (kept here so drizzle-kit owns every migration).
export const user = pgTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const session = pgTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    token: text("token").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
  },
  (t) => [index("session_user_idx").on(t.userId)],
);

export const account = pgTable(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestamp("access_token_expires_at", { withTimezone: true }),
    refreshTokenExpiresAt: timestamp("refresh_token_expires_at", { withTimezone: true }),
    scope: text("scope"),
    password: text("password"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("account_user_idx").on(t.userId)],
);

export const verification = pgTable(
  "verification",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("verification_identifier_idx").on(t.identifier)],
);

// Profiles (id = auth user id; docs/product.md#accounts).
export const profiles = pgTable("profiles", {
  id: text("id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  email: text("email").notNull(),
  username: text("username").notNull().unique(),
  fullName: text("full_name").notNull(),
  isAdmin: boolean("is_admin").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

// E-mail confirmation links are single use: the hash of each used token is kept until it expires.
export const usedTokens = pgTable("used_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  usedAt: timestamp("used_at", { withTimezone: true }).notNull().defaultNow(),
});

// MCP server record (catalogue entries, docs/product.md#catalogue). The search columns (search_doc,
// search_text) and their indexes are added by a hand-written migration (0003_catalog_search).
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
  },
  (t) => [
    index("mcp_servers_approved_category_idx").on(t.isApproved, t.category),
    index("mcp_servers_approved_use_idx").on(t.isApproved, t.recentUsers),
    index("mcp_servers_approved_created_idx").on(t.isApproved, t.createdAt),
    index("mcp_servers_approved_name_idx").on(t.isApproved, t.name),
    index("mcp_servers_approved_category_use_idx").on(t.isApproved, t.category, t.recentUsers),
    index("mcp_servers_tags_idx").using("gin", t.tags),
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
  },
  (t) => [index("rejected_submissions_user_idx").on(t.submittedBy, t.rejectedAt)],
);

// API key (docs/product.md#api-keys). Only a SHA-256 hash of the key and a short display prefix are kept.
export const apiKeys = pgTable(
  "api_keys",
  {
    id: serial("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    /** what it opens (docs/product.md#api-keys): 'mcp', 'deploy', 'servers'; account, keys, billing and admin need a sign-in */
    scopes: text("scopes")
      .array()
      .notNull()
      .default(sql`'{mcp}'::text[]`),
    /** the servers whose deployments it may reach ('catalog:<id>', 'owned:<owner>/<name>'); null: all of its owner's */
    resources: text("resources").array(),
    /** refused from this moment on; null: never expires */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** made before keys had scopes: given every scope then, its owner may narrow it */
    legacy: boolean("legacy").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("api_keys_user_name_idx").on(t.userId, t.name)],
);

// Owned server record, registered under `owner/name` by its owner (docs/product.md#owned-servers).
export const ownedServers = pgTable(
  "servers",
  {
    qualifiedName: text("qualified_name").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    displayName: text("display_name").notNull(),
    description: text("description").notNull(),
    version: text("version").notNull().default("1.0.0"),
    homepage: text("homepage"),
    repositoryUrl: text("repository_url"),
    keywords: text("keywords")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    documentation: text("documentation"),
    connections: jsonb("connections").notNull(),
    useCount: integer("use_count").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("servers_owner_idx").on(t.ownerId, t.createdAt),
    uniqueIndex("servers_qualified_name_lower_idx").on(sql`lower(${t.qualifiedName})`),
  ],
);

// Billing (docs/product.md#billing, docs/billing.md). One row per user with a paid plan,
// from the built-in test-mode provider or Stripe; no row means Free.
export const subscriptions = pgTable(
  "subscriptions",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    /** 'test' (built-in test-mode checkout) or 'stripe' */
    provider: text("provider").notNull(),
    plan: text("plan").notNull(),
    /** the provider's status: active, trialing, past_due, canceled, incomplete, unpaid, ... */
    status: text("status").notNull(),
    customerId: text("customer_id"),
    subscriptionId: text("subscription_id").unique(),
    currentPeriodEnd: timestamp("current_period_end", { withTimezone: true }),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    /** `created` of the last provider event applied: an older event never overrides a newer one */
    lastEventAt: timestamp("last_event_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("subscriptions_customer_idx").on(t.customerId)],
);

/** Checkout sessions: one open session per user at a time (a double click reuses it). */
export const checkoutSessions = pgTable(
  "checkout_sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    plan: text("plan").notNull(),
    /** open, complete, canceled, expired */
    status: text("status").notNull().default("open"),
    url: text("url").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("checkout_sessions_user_idx").on(t.userId, t.status)],
);

/** Provider events already applied: a webhook delivered twice (or concurrently) is applied once. */
export const billingEvents = pgTable("billing_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
});
