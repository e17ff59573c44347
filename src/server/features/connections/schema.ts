import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.js";

// An OAuth sign-in to a remote server under way (features/connections/upstream-oauth.ts): the
// state sent to its authorization server (hashed), whose browser it is, and what the callback
// needs to finish (the PKCE verifier, the client registration, the connection to create or
// sign in again), sealed. Used once; gone after `expires_at`.
export const connectionAuthorizations = pgTable(
  "connection_authorizations",
  {
    stateHash: text("state_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    sealed: text("sealed").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("connection_authorizations_user_idx").on(t.userId)],
);
