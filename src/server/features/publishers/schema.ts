// The publishers' table: the servers owners register under `owner/name` (features/publishers/repo.ts).
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.js";

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
