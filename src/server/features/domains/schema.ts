// Custom domains for deployments and toolsets (Pro; docs/operations.md#custom-domains): a domain its
// owner proved control of with a DNS TXT record reaches the deployment's gateway endpoint.
import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { deployments } from "../deployments/schema.js";

export const customDomains = pgTable(
  "custom_domains",
  {
    /** lower case, no trailing dot; one owner across the whole platform */
    domain: text("domain").primaryKey(),
    deploymentId: text("deployment_id")
      .notNull()
      .references(() => deployments.id, { onDelete: "cascade" }),
    /** the value the TXT record _switchboard-challenge.<domain> must hold */
    token: text("token").notNull(),
    /** pending (never proved), verified (served), suspended (its record went away past the grace period) */
    status: text("status").$type<"pending" | "verified" | "suspended">().notNull().default("pending"),
    verifiedAt: timestamp("verified_at", { withTimezone: true }),
    checkedAt: timestamp("checked_at", { withTimezone: true }),
    /** since when a verified domain's record has been missing (the grace period runs from here) */
    missingSince: timestamp("missing_since", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("custom_domains_status_check", sql`${t.status} in ('pending', 'verified', 'suspended')`),
    index("custom_domains_deployment_idx").on(t.deploymentId),
  ],
);
