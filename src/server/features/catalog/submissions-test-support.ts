// Set-up shared by the submission tests (submit, review, my-submissions): an app with one admin
// and one submitter, and a valid submission.
import { createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";

export interface SubmissionsApp {
  t: TestApp;
  user: Client & { id: string };
  admin: Client & { id: string };
}

/** A test app whose ADMIN_EMAILS is admin@example.com, with that admin and submitter@example.com signed in. */
export async function startSubmissionsApp(): Promise<SubmissionsApp> {
  const t = await createTestApp({ ADMIN_EMAILS: "admin@example.com" });
  const user = await signedInUser(t, "submitter@example.com");
  const admin = await signedInUser(t, "admin@example.com");
  return { t, user, admin };
}

export const valid = {
  name: "PostgreSQL MCP",
  description: "Query *Postgres* safely",
  category: "Data & Storage",
  type: "Community",
  source: "user_submitted",
  tags: ["postgres", " sql ", "postgres"],
  repository_url: "https://github.com/example/pg-mcp",
  url: "",
  npx_command: "npx -y pg-mcp",
  required_keys: [{ key: "Database URL", env_var: "DATABASE_URL", description: "Where to connect" }],
};
