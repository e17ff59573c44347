// The profiles' table: a user's name, username and admin flag (features/profile/repo.ts).
import { boolean, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.js";

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
