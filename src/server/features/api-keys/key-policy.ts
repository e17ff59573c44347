import type { KeyScope } from "~/shared/publishers.js";

// What an API key may do on the REST API (docs/product.md#api-keys): the one table of it. A key
// is what people paste into a client's config file, a file that gets copied, shared and committed,
// so it opens what a client needs and nothing about the account. Anything this table does not
// name (the account, keys, billing, connected apps, admin) needs a sign-in.

export type KeyRule = KeyScope | "public" | "session";

const RULES: readonly [method: string | null, path: RegExp, rule: KeyRule][] = [
  [null, /^\/api\/deploy\//, "deploy"],
  [null, /^\/api\/deployments(\/|$)/, "deploy"],
  [null, /^\/api\/connections(\/|$)/, "deploy"],
  [null, /^\/api\/toolsets(\/|$)/, "deploy"],
  ["GET", /^\/api\/servers\/[^/]+\/[^/]+\/tool-stats$/, "public"],
  [null, /^\/api\/servers(\/|$)/, "servers"],
  ["POST", /^\/api\/mcp-servers\/?$/, "servers"],
  ["GET", /^\/api\/submissions\/?$/, "servers"],
  ["GET", /^\/api\/mcp-servers(\/|$)/, "public"],
  ["GET", /^\/api\/openapi\.json$/, "public"],
  ["POST", /^\/api\/waitlist\/?$/, "public"],
  // A TLS proxy asks it before getting a certificate: whether this site serves a domain.
  ["GET", /^\/api\/custom-domains\/allowed$/, "public"],
];

/** What a request with an API key needs: a scope, nothing (a public route), or a sign-in. */
export function keyRule(method: string, path: string): KeyRule {
  const m = method === "HEAD" ? "GET" : method;
  for (const [method, re, rule] of RULES) if ((method === null || method === m) && re.test(path)) return rule;
  return "session";
}
