// The API keys' table (features/api-keys/repo.ts).
import { sql } from "drizzle-orm";
import { boolean, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.js";

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
