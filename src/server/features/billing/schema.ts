// Billing's tables (docs/billing.md): paid plans, checkout sessions and the provider events already
// applied (features/billing/repo.ts).
import { boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.js";

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
