// The database schema: the platform's tables (schema-core.ts, schema-hosting.ts) and the OAuth provider's
// (schema-oauth.ts). Import tables from here; drizzle-kit reads this file.
export * from "./schema-core.js";
export * from "./schema-hosting.js";
export * from "./schema-oauth.js";
export * from "./schema-cluster.js";
export * from "./schema-observability.js";
