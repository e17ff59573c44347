// Who may call each REST route, and what a successful call writes to the audit log: the one table
// of it (docs/product.md#audit-log). Every route of /api/openapi.json is here (route-policy.int.test
// fails on one that is not), every state-changing one names its audit action (and fails without),
// and the test tries each route's role as someone who lacks it. What an API key may reach on top
// is api-keys/key-policy.ts.
//
// Roles: public (anyone), user (signed in: their own things, and what their organisations own: a
// deployment's routes answer its organisation's members to read and its admins to change, as
// features/orgs/accounts.ts `reaches` says), admin (the site's admins), and
// org:member, org:admin, org:owner (that role at least in the organisation the path's {slug} names;
// the orgs service checks it and answers 404 to anyone outside, so an organisation is not revealed).

export type RouteRole = "public" | "user" | "admin" | "org:member" | "org:admin" | "org:owner";

export interface RoutePolicy {
  role: RouteRole;
  /** the audit action a successful call records (state-changing routes) */
  audit?: string;
  /** which path parameter names the target (its kind is the action's first word) */
  target?: string;
  /** what of the JSON body is kept with it: names, never values */
  detail?: (body: Record<string, unknown>) => Record<string, unknown>;
}

const namesOf = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v).sort().slice(0, 100) : undefined);
/** A deployment's keys and a connection's headers: their names, never their values. */
export const envNames = (b: Record<string, unknown>) => {
  const keys = namesOf(b.env);
  const headers = namesOf(b.headers);
  return { ...(keys ? { keys } : {}), ...(headers ? { headers } : {}) };
};
/** An address without what may be secret in it (user, password, path, query). */
const originOf = (u: unknown) => {
  try {
    return typeof u === "string" ? { url: new URL(u).origin } : {};
  } catch {
    return {};
  }
};
const pick =
  (...names: string[]) =>
  (b: Record<string, unknown>) =>
    Object.fromEntries(
      names.filter((n) => typeof b[n] === "string" || typeof b[n] === "boolean" || typeof b[n] === "number").map((n) => [n, b[n]]),
    );
const toolNames = (b: Record<string, unknown>) =>
  Array.isArray(b.hidden) ? { hidden: b.hidden.filter((x) => typeof x === "string").slice(0, 200) } : {};
const definitionNames = (b: Record<string, unknown>) => ({
  ...pick("decision")(b),
  ...(Array.isArray(b.items)
    ? { items: b.items.slice(0, 100).map((i) => `${(i as { kind?: unknown }).kind}:${(i as { name?: unknown }).name}`) }
    : {}),
});

/** A deploy: its keys' names and the organisation it is for (its slug), when one. */
const deploy: RoutePolicy = { role: "user", audit: "deployment.deploy", detail: (b) => ({ ...envNames(b), ...pick("owner")(b) }) };

export const ROUTE_POLICY: Record<string, RoutePolicy> = {
  // The catalogue and the registry: anyone reads
  "GET /mcp-servers": { role: "public" },
  "GET /mcp-servers/{id}": { role: "public" },
  "GET /mcp-servers/{id}/related": { role: "public" },
  "GET /mcp-servers/{id}/tool-stats": { role: "public" },
  "GET /servers/{owner}/{name}/tool-stats": { role: "public" },
  "GET /custom-domains/allowed": { role: "public" },
  "POST /waitlist": { role: "public", audit: "waitlist.join" },
  // Stripe signs it (billing/webhooks.ts): a plan change the site itself records
  "POST /webhooks/stripe": { role: "public", audit: "plan.webhook" },
  // Submissions and owned servers
  "POST /mcp-servers": { role: "user", audit: "catalog.submit", detail: pick("name", "qualifiedName") },
  "GET /submissions": { role: "user" },
  "GET /servers": { role: "user" },
  "POST /servers": { role: "user", audit: "server.register", detail: pick("qualifiedName") },
  "GET /servers/{owner}/{name}": { role: "user" },
  "PUT /servers/{owner}/{name}": { role: "user", audit: "server.edit", target: "name" },
  // Admins' catalogue decisions
  "GET /admin/mcp-servers": { role: "admin" },
  "PUT /admin/mcp-servers/{id}": { role: "admin", audit: "catalog.decide", target: "id", detail: pick("status", "featured", "trust") },
  "DELETE /admin/mcp-servers/{id}": { role: "admin", audit: "catalog.delete", target: "id" },
  "POST /admin/mcp-servers/{id}/approve": { role: "admin", audit: "catalog.approve", target: "id" },
  "POST /admin/mcp-servers/{id}/unapprove": { role: "admin", audit: "catalog.unapprove", target: "id" },
  "POST /admin/mcp-servers/{id}/accept-tools": { role: "admin", audit: "catalog.accept_tools", target: "id" },
  "POST /admin/mcp-servers/{id}/check": { role: "admin", audit: "catalog.check", target: "id" },
  "POST /admin/mcp-servers/{id}/take-upstream": { role: "admin", audit: "catalog.take_upstream", target: "id" },
  "GET /admin/registry-sync": { role: "admin" },
  "POST /admin/registry-sync": { role: "admin", audit: "catalog.sync" },
  // The account
  "GET /auth/me": { role: "user" },
  "PUT /users/{id}": { role: "user", audit: "account.edit", target: "id", detail: pick("username") },
  "DELETE /users/{id}": { role: "user", audit: "account.delete", target: "id" },
  "POST /auth/apikeys": { role: "user", audit: "api_key.create", detail: pick("name") },
  "DELETE /auth/apikeys/{name}": { role: "user", audit: "api_key.revoke", target: "name" },
  "GET /auth/connected-apps": { role: "user" },
  "DELETE /auth/connected-apps/{id}": { role: "user", audit: "oauth_grant.revoke", target: "id" },
  // Plans
  "GET /subscriptions/current": { role: "user" },
  "GET /subscriptions/stripe-status": { role: "user" },
  "POST /subscriptions/checkout": { role: "user", audit: "plan.checkout" },
  "POST /subscriptions/cancel": { role: "user", audit: "plan.cancel" },
  "GET /subscriptions/test-checkout/{id}": { role: "user" },
  "POST /subscriptions/test-checkout/{id}/confirm": { role: "user", audit: "plan.pay", target: "id" },
  "POST /subscriptions/test-checkout/{id}/cancel": { role: "user", audit: "plan.abandon", target: "id" },
  "POST /subscriptions/test-clock/end-period": { role: "user", audit: "plan.test_clock" },
  // Deployments
  "POST /deploy/{id}": { ...deploy, target: "id" },
  "POST /deploy/{owner}/{name}": { ...deploy, target: "name" },
  "GET /deployments": { role: "user" },
  "GET /deployments/server/{id}": { role: "user" },
  "GET /deployments/server/{owner}/{name}": { role: "user" },
  "DELETE /deployments/{id}": { role: "user", audit: "deployment.stop", target: "id" },
  "POST /deployments/{id}/restart": { role: "user", audit: "deployment.restart", target: "id" },
  "PUT /deployments/{id}/env": { role: "user", audit: "deployment.edit_keys", target: "id", detail: envNames },
  "PUT /deployments/{id}/sleep": { role: "user", audit: "deployment.sleep", target: "id", detail: pick("keep_awake") },
  "PUT /deployments/{id}/tools": { role: "user", audit: "deployment.select_tools", target: "id", detail: toolNames },
  "GET /deployments/{id}/definitions": { role: "user" },
  "POST /deployments/{id}/definitions": {
    role: "user",
    audit: "deployment.approve_definitions",
    target: "id",
    detail: definitionNames,
  },
  "PUT /deployments/{id}/definitions/mode": { role: "user", audit: "deployment.pin_mode", target: "id", detail: pick("warn_only") },
  "GET /deployments/{id}/logs": { role: "user" },
  "GET /deployments/{id}/requests": { role: "user" },
  "GET /deployments/{id}/alerts": { role: "user" },
  "PUT /deployments/{id}/alerts": { role: "user", audit: "alerts.edit", target: "id" },
  "POST /deployments/{id}/alerts/test": { role: "user", audit: "alerts.test", target: "id" },
  "GET /deployments/{id}/domains": { role: "user" },
  "POST /deployments/{id}/domains": { role: "user", audit: "domain.add", target: "id", detail: pick("domain") },
  "POST /deployments/{id}/domains/{domain}/verify": { role: "user", audit: "domain.verify", target: "domain" },
  "DELETE /deployments/{id}/domains/{domain}": { role: "user", audit: "domain.remove", target: "domain" },
  // Connections (remote servers)
  "GET /connections": { role: "user" },
  "POST /connections": {
    role: "user",
    audit: "connection.create",
    detail: (b) => ({ ...pick("name", "server_id", "transport")(b), ...originOf(b.url), ...envNames(b) }),
  },
  "GET /connections/{id}": { role: "user" },
  "PUT /connections/{id}": { role: "user", audit: "connection.edit", target: "id", detail: envNames },
  "DELETE /connections/{id}": { role: "user", audit: "connection.remove", target: "id" },
  "POST /connections/{id}/authorize": { role: "user", audit: "connection.authorize", target: "id" },
  "POST /connections/authorized": { role: "user", audit: "connection.signed_in" },
  // Toolsets
  "GET /toolsets": { role: "user" },
  "POST /toolsets": { role: "user", audit: "toolset.create", detail: pick("name") },
  "GET /toolsets/{id}": { role: "user" },
  "PUT /toolsets/{id}": { role: "user", audit: "toolset.edit", target: "id" },
  "DELETE /toolsets/{id}": { role: "user", audit: "toolset.remove", target: "id" },
  "GET /toolsets/{id}/domains": { role: "user" },
  "POST /toolsets/{id}/domains": { role: "user", audit: "domain.add", target: "id", detail: pick("domain") },
  "POST /toolsets/{id}/domains/{domain}/verify": { role: "user", audit: "domain.verify", target: "domain" },
  "DELETE /toolsets/{id}/domains/{domain}": { role: "user", audit: "domain.remove", target: "domain" },
  // Organisations (features/orgs)
  "GET /orgs": { role: "user" },
  "POST /orgs": { role: "user", audit: "org.create" },
  "GET /orgs/{slug}": { role: "org:member" },
  "DELETE /orgs/{slug}": { role: "org:owner", audit: "org.delete" },
  "PUT /orgs/{slug}": { role: "org:admin", audit: "org.rename" },
  "PUT /orgs/{slug}/settings": { role: "org:admin", audit: "org.settings", detail: pick("members_deploy") },
  "POST /orgs/{slug}/invitations": { role: "org:admin", audit: "member.invite" },
  "DELETE /orgs/{slug}/invitations/{invitationId}": { role: "org:admin", audit: "member.invitation_revoke" },
  "PUT /orgs/{slug}/members/{memberId}/role": { role: "org:owner", audit: "member.role_change" },
  "DELETE /orgs/{slug}/members/{memberId}": { role: "org:admin", audit: "member.remove" },
  "POST /orgs/{slug}/leave": { role: "org:member", audit: "member.leave" },
  "GET /invitations/{id}": { role: "user" },
  "POST /invitations/{id}/accept": { role: "user", audit: "member.join" },
  "POST /invitations/{id}/decline": { role: "user", audit: "member.decline" },
  // The audit log itself
  "GET /audit": { role: "user" },
};

/** `METHOD /openapi/{path}` of a Hono route path (`/api/deployments/:id`). */
export function policyKey(method: string, routePath: string): string {
  const p = routePath.replace(/^\/api(?=\/)/, "").replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");
  return `${method.toUpperCase()} ${p}`;
}

export function policyOf(method: string, routePath: string): RoutePolicy | undefined {
  return ROUTE_POLICY[policyKey(method, routePath)];
}

/**
 * Who may open each page (src/web/routes.ts): the same roles. A page a visitor may not open sends
 * them to log in (signed out), answers as if it were not there (404: an organisation's page to an
 * outsider), or sends a non-admin from the admins' page back to the directory. route-policy.int.test walks every page.
 */
export const PAGE_POLICY: Record<string, RouteRole> = {
  "/": "public",
  "/servers": "public",
  "/docs": "public",
  "/waitlist": "public",
  "/login": "public",
  "/register": "public",
  "/forgot-password": "public",
  "/reset-password": "public",
  "/verify-email": "public",
  "/oauth/consent": "user",
  "/oauth/error": "public",
  "/profile": "user",
  "/deployments": "user",
  "/connections": "user",
  "/connections/:name": "user",
  "/connections/oauth/callback": "user",
  "/toolsets": "user",
  "/toolsets/:name": "user",
  "/submissions": "user",
  "/orgs": "user",
  "/orgs/:slug": "org:member",
  // Anyone holding the link sees that it asks them to log in; only its recipient may accept it.
  "/invitations/:id": "public",
  "/audit": "user",
  "/server/:id": "public",
  "/server/:owner/:name": "public",
  "/servers/server/new": "user",
  "/servers/server/:owner/:name/edit": "user",
  "/servers/apikeys": "user",
  "/servers/add": "public",
  "/admin/mcp-servers": "admin",
  "/subscription": "public",
  "/subscription/test-checkout/:id": "user",
  "/*": "public",
};
