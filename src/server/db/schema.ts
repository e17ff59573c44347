// The database schema: every table, each defined next to the feature that owns it (its schema.ts),
// gathered here. Import tables from here; drizzle-kit reads this file (drizzle.config.ts).
export * from "../features/auth/schema.js";
export * from "../features/waitlist/schema.js";
export * from "../features/profile/schema.js";
export * from "../features/catalog/schema.js";
export * from "../features/publishers/schema.js";
export * from "../features/api-keys/schema.js";
export * from "../features/connections/schema.js";
export * from "../features/billing/schema.js";
export * from "../features/deployments/schema.js";
export * from "../features/gateway/schema.js";
export * from "../features/oauth/schema.js";
export * from "../features/request-log/schema.js";
export * from "../features/alerts/schema.js";
export * from "../features/domains/schema.js";
export * from "../features/orgs/schema.js";
export * from "../features/audit/schema.js";
export * from "../cluster/schema.js";
