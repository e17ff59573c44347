// The gateway's table: who used which server on which day, written in batches by features/gateway/repo.ts.
import { bigint, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** Who called which server on which day (the gateway's usage batches): popularity counts people, not requests. */
export const usageDaily = pgTable(
  "usage_daily",
  {
    serverKind: text("server_kind").notNull(),
    serverRef: text("server_ref").notNull(),
    userId: text("user_id").notNull(),
    day: timestamp("day", { withTimezone: true, mode: "string" }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.serverKind, t.serverRef, t.userId, t.day] }), index("usage_daily_day_idx").on(t.day)],
);
