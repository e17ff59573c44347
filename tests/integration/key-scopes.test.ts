// Scoped API keys (docs/product.md#api-keys), tried as the holder of a leaked key would: a key
// opens its scopes' routes and the deployments it names, nothing about the account; it stops at
// its expiry on every process at once; keys made before scopes keep working.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { API_KEY_TEXT, type ApiKeyView } from "~/shared/publishers.js";
import { GATEWAY_TEXT } from "~/server/features/gateway/text.js";
import { protectedResourceMetadataUrl } from "~/server/features/oauth/resource.js";
import { keyRule, type KeyRule } from "~/server/features/api-keys/key-policy.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { MCP_ACCEPT, raw, rawSession, sdkClient, sdkV2Client, textOf } from "../support/gateway.js";
import { startOAuthApp, type OAuthApp } from "../support/oauth-app.js";
import { send, type Answer, type HttpUser } from "../support/oauth.js";

let o: OAuthApp;
let alice: HttpUser;
let bob: HttpUser;
let root: HttpUser;
let one: DeploymentView;
let two: DeploymentView;
beforeAll(async () => {
  o = await startOAuthApp({ ADMIN_EMAILS: "root@example.com" });
  alice = await o.user("alice@example.com");
  bob = await o.user("bob@example.com");
  root = await o.user("root@example.com");
  await o.pro(alice);
  one = await o.deploy(alice, "one");
  two = await o.deploy(alice, "two");
  await bob.post("/api/servers", {
    qualifiedName: "bob/secret",
    displayName: "Secret",
    description: "Bob's own server",
    repositoryUrl: "https://example.com/bob/secret",
    keywords: "test",
    connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
  });
});
afterAll(() => o?.close());

/** A new key of `user` made through their sign-in; the body is what the API Keys page posts. */
async function makeKey(user: HttpUser, body: Record<string, unknown>): Promise<{ apiKey: string; key: ApiKeyView }> {
  const r = await user.post("/api/auth/apikeys", body);
  expect(r.status, r.text).toBe(201);
  return r.json();
}

/** A request carrying only the key: no cookie, no Origin (curl, a CI job, an MCP client's config). */
const asKey = (key: string, method: string, path: string, json?: unknown, base = o.base) =>
  send(`${base}${path}`, { method, json, origin: false, headers: { authorization: `Bearer ${key}` } });

function refusedFor(r: Answer, status: number, error: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.json<{ error: string }>().error).toBe(error);
}

const initialize = (url: string, key: string) =>
  raw(url, {
    headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "scopes", version: "1" } },
    },
  });

/** The gateway's 403 for a good key that does not reach this deployment: the resource metadata and the scope. */
function scopeRefusal(r: { status: number; headers: Record<string, unknown>; body: string }, d: DeploymentView, message: string) {
  expect(r.status, r.body).toBe(403);
  expect(r.headers["www-authenticate"]).toBe(
    `Bearer realm="mcp", resource_metadata="${protectedResourceMetadataUrl(o.base, d.proxy_id)}", error="insufficient_scope", scope="mcp"`,
  );
  expect(JSON.parse(r.body)).toMatchObject({ error: { message } });
}

describe("scopes", () => {
  it("a new key has the mcp scope only unless more are ticked, and the list says what each key opens", async () => {
    const { key } = await makeKey(alice, { name: "claude-desktop" });
    expect(key).toMatchObject({ name: "claude-desktop", scopes: ["mcp"], resources: null, expiresAt: null, legacy: false });
    const { key: ci } = await makeKey(alice, { name: "ci", scopes: ["deploy", "servers"], expiry: "30" });
    expect(ci.scopes).toEqual(["deploy", "servers"]);
    const days = (Date.parse(ci.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const listed = (await alice.get("/api/auth/me")).json<{ user: { apiKeys: ApiKeyView[] } }>().user.apiKeys;
    expect(listed.find((k) => k.name === "ci")).toMatchObject({ scopes: ["deploy", "servers"], resources: null, legacy: false });
  });

  it("refuses a key with no scope, an unknown scope, an expiry in the past or beyond 10 years, or a server without a name", async () => {
    for (const scopes of [[], ["admin"], ["mcp", "account"]]) {
      const r = await alice.post("/api/auth/apikeys", { name: `bad-${scopes.length}-${scopes[0] ?? ""}`, scopes });
      refusedFor(r, 400, API_KEY_TEXT.scopeRequired);
    }
    const elevenYears = new Date(Date.now() + 11 * 366 * 86_400_000).toISOString().slice(0, 10);
    for (const expiresAt of ["2020-01-01", "not a date", "", "10000-01-01", "+275760-09-13", elevenYears]) {
      refusedFor(await alice.post("/api/auth/apikeys", { name: "past", expiry: "custom", expiresAt }), 400, API_KEY_TEXT.badExpiry);
    }
    // A resource with a kind and no name is a clear 400 too, never a 500.
    for (const resources of [["catalog:"], ["owned:"], ["owned:/"], ["/"]]) {
      const r = await alice.post("/api/auth/apikeys", { name: "empty-resource", resources });
      expect(r.status, `${resources[0]}: ${r.text}`).toBe(400);
    }
    const listed = (await alice.get("/api/auth/me")).json<{ user: { apiKeys: ApiKeyView[] } }>().user.apiKeys;
    expect(listed.map((k) => k.name)).not.toContain("past");
    expect(listed.map((k) => k.name)).not.toContain("empty-resource");
  });

  it("mcp: the gateway, and no REST route that needs another scope", async () => {
    const { apiKey } = await makeKey(alice, { name: "mcp-only", scopes: ["mcp"] });
    expect((await initialize(one.url, apiKey)).status).toBe(200);
    refusedFor(await asKey(apiKey, "GET", "/api/deployments"), 403, API_KEY_TEXT.missingScope("deploy"));
    refusedFor(
      await asKey(apiKey, "POST", "/api/deploy/alice/one", { repositoryUrl: o.repo.url, env: {} }),
      403,
      API_KEY_TEXT.missingScope("deploy"),
    );
    refusedFor(await asKey(apiKey, "DELETE", `/api/deployments/${one.id}`), 403, API_KEY_TEXT.missingScope("deploy"));
    refusedFor(await asKey(apiKey, "GET", "/api/servers"), 403, API_KEY_TEXT.missingScope("servers"));
    const submit = await asKey(apiKey, "POST", "/api/mcp-servers", { name: "Sneaky" });
    refusedFor(submit, 403, API_KEY_TEXT.missingScope("servers"));
    expect(submit.json()).toMatchObject({ code: "forbidden", scope: "servers" });
    // Public reads stay public with any key.
    expect((await asKey(apiKey, "GET", "/api/mcp-servers")).status).toBe(200);
  });

  it("deploy: deployments, their logs and request logs; not the gateway, not servers", async () => {
    const { apiKey } = await makeKey(alice, { name: "deploy-only", scopes: ["deploy"] });
    const mine = (await asKey(apiKey, "GET", "/api/deployments/server/alice/one")).json<{ deployments: DeploymentView[] }>().deployments;
    expect(mine[0]?.id).toBe(one.id);
    expect((await asKey(apiKey, "GET", `/api/deployments/${one.id}/logs`)).status).toBe(200);
    expect((await asKey(apiKey, "GET", `/api/deployments/${one.id}/requests`)).status).toBe(200);
    scopeRefusal(await initialize(one.url, apiKey), one, GATEWAY_TEXT.keyScope("mcp"));
    refusedFor(await asKey(apiKey, "GET", "/api/servers"), 403, API_KEY_TEXT.missingScope("servers"));
  });

  it("servers: registering and editing owned servers; not deployments, not the gateway", async () => {
    const { apiKey } = await makeKey(alice, { name: "servers-only", scopes: ["servers"] });
    const made = await asKey(apiKey, "POST", "/api/servers", {
      qualifiedName: "alice/from-ci",
      displayName: "From CI",
      description: "Registered by a pipeline",
      repositoryUrl: "https://example.com/alice/from-ci",
      keywords: "ci",
      connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
    });
    expect(made.status, made.text).toBe(201);
    expect(
      (await asKey(apiKey, "GET", "/api/servers")).json<{ data: { qualifiedName: string }[] }>().data.map((s) => s.qualifiedName),
    ).toContain("alice/from-ci");
    refusedFor(await asKey(apiKey, "GET", "/api/deployments"), 403, API_KEY_TEXT.missingScope("deploy"));
    scopeRefusal(await initialize(one.url, apiKey), one, GATEWAY_TEXT.keyScope("mcp"));
  });
});

/**
 * Every REST route with what a key needs for it, decided here one by one: a new route fails this
 * test until it is put in this table (and so in key-policy.ts) on purpose.
 */
const EXPECTED_KEY_RULES: Record<string, KeyRule> = {
  "POST /waitlist": "public",
  "PUT /users/{id}": "session",
  "DELETE /users/{id}": "session",
  "GET /mcp-servers": "public",
  "POST /mcp-servers": "servers",
  "GET /mcp-servers/{id}": "public",
  "GET /mcp-servers/{id}/related": "public",
  "GET /admin/mcp-servers": "session",
  "POST /admin/mcp-servers/{id}/approve": "session",
  "POST /admin/mcp-servers/{id}/unapprove": "session",
  "POST /admin/mcp-servers/{id}/accept-tools": "session",
  "DELETE /admin/mcp-servers/{id}": "session",
  "PUT /admin/mcp-servers/{id}": "session",
  "POST /admin/mcp-servers/{id}/take-upstream": "session",
  "GET /admin/registry-sync": "session",
  "POST /admin/registry-sync": "session",
  "GET /auth/me": "session",
  // Organisations and the audit log: people and their record are a sign-in's business
  "GET /orgs": "session",
  "POST /orgs": "session",
  "GET /orgs/{slug}": "session",
  "DELETE /orgs/{slug}": "session",
  "PUT /orgs/{slug}": "session",
  "POST /orgs/{slug}/invitations": "session",
  "DELETE /orgs/{slug}/invitations/{invitationId}": "session",
  "PUT /orgs/{slug}/members/{memberId}/role": "session",
  "PUT /orgs/{slug}/settings": "session",
  "DELETE /orgs/{slug}/members/{memberId}": "session",
  "POST /orgs/{slug}/leave": "session",
  "GET /invitations/{id}": "session",
  "POST /invitations/{id}/accept": "session",
  "POST /invitations/{id}/decline": "session",
  "GET /audit": "session",
  "POST /auth/apikeys": "session",
  "DELETE /auth/apikeys/{name}": "session",
  "GET /servers": "servers",
  "POST /servers": "servers",
  "GET /servers/{owner}/{name}": "servers",
  "PUT /servers/{owner}/{name}": "servers",
  "GET /auth/connected-apps": "session",
  "DELETE /auth/connected-apps/{id}": "session",
  "GET /subscriptions/current": "session",
  "GET /subscriptions/stripe-status": "session",
  "POST /subscriptions/checkout": "session",
  "POST /subscriptions/cancel": "session",
  "GET /subscriptions/test-checkout/{id}": "session",
  "POST /subscriptions/test-checkout/{id}/confirm": "session",
  "POST /subscriptions/test-checkout/{id}/cancel": "session",
  "POST /subscriptions/test-clock/end-period": "session",
  "POST /webhooks/stripe": "session",
  "POST /admin/mcp-servers/{id}/check": "session",
  "POST /deploy/{id}": "deploy",
  "POST /deploy/{owner}/{name}": "deploy",
  "GET /deployments": "deploy",
  "POST /connections": "deploy",
  "GET /connections": "deploy",
  "GET /connections/{id}": "deploy",
  "PUT /connections/{id}": "deploy",
  "DELETE /connections/{id}": "deploy",
  "POST /connections/{id}/authorize": "deploy",
  "POST /connections/authorized": "deploy",
  "POST /toolsets": "deploy",
  "GET /toolsets": "deploy",
  "GET /toolsets/{id}": "deploy",
  "PUT /toolsets/{id}": "deploy",
  "DELETE /toolsets/{id}": "deploy",
  "GET /deployments/server/{id}": "deploy",
  "GET /deployments/server/{owner}/{name}": "deploy",
  "GET /deployments/{id}/logs": "deploy",
  "PUT /deployments/{id}/tools": "deploy",
  "PUT /deployments/{id}/sleep": "deploy",
  "GET /deployments/{id}/definitions": "deploy",
  "POST /deployments/{id}/definitions": "deploy",
  "PUT /deployments/{id}/definitions/mode": "deploy",
  "DELETE /deployments/{id}": "deploy",
  "POST /deployments/{id}/restart": "deploy",
  "PUT /deployments/{id}/env": "deploy",
  "GET /submissions": "servers",
  "GET /deployments/{id}/requests": "deploy",
  "GET /deployments/{id}/alerts": "deploy",
  "PUT /deployments/{id}/alerts": "deploy",
  "POST /deployments/{id}/alerts/test": "deploy",
  "GET /deployments/{id}/domains": "deploy",
  "POST /deployments/{id}/domains": "deploy",
  "POST /deployments/{id}/domains/{domain}/verify": "deploy",
  "DELETE /deployments/{id}/domains/{domain}": "deploy",
  "GET /toolsets/{id}/domains": "deploy",
  "POST /toolsets/{id}/domains": "deploy",
  "POST /toolsets/{id}/domains/{domain}/verify": "deploy",
  "DELETE /toolsets/{id}/domains/{domain}": "deploy",
  "GET /custom-domains/allowed": "public",
  "GET /mcp-servers/{id}/tool-stats": "public",
  "GET /servers/{owner}/{name}/tool-stats": "public",
};

describe("the key policy covers every route", () => {
  it("each route of /api/openapi.json needs what this table says: no route is open to a key by accident", async () => {
    const doc = (await send(`${o.base}/api/openapi.json`, { origin: false })).json<{ paths: Record<string, Record<string, unknown>> }>();
    const actual: Record<string, KeyRule> = {};
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops))
        actual[`${method.toUpperCase()} ${path}`] = keyRule(method.toUpperCase(), `/api${path.replace(/\{[^}]+\}/g, "x")}`);
    }
    expect(actual).toEqual(EXPECTED_KEY_RULES);
  });
});

describe("what only a sign-in may do", () => {
  it("a key with every scope cannot mint or revoke keys, change the e-mail or password, delete the account, check out, see connected apps or act as admin: 403, never a 500", async () => {
    const { apiKey } = await makeKey(alice, { name: "everything", scopes: ["mcp", "deploy", "servers"] });
    const { apiKey: rootKey } = await makeKey(root, { name: "root-key", scopes: ["mcp", "deploy", "servers"] });
    const attempts: [string, string, unknown?][] = [
      ["POST", "/api/auth/apikeys", { name: "persistence", scopes: ["mcp", "deploy", "servers"] }],
      ["DELETE", "/api/auth/apikeys/claude-desktop"],
      ["GET", "/api/auth/me"],
      ["GET", "/api/auth/connected-apps"],
      ["PUT", `/api/users/${alice.id}`, { email: "attacker@example.com" }],
      ["PUT", `/api/users/${alice.id}`, { currentPassword: "password123", password: "attacker-password" }],
      ["PUT", `/api/users/${alice.id}`, { username: "pwned" }],
      ["DELETE", `/api/users/${alice.id}`, { confirmEmail: "alice@example.com" }],
      ["POST", "/api/subscriptions/checkout", { plan: "pro", period: "yearly" }],
      ["POST", "/api/subscriptions/cancel", {}],
      // better-auth's own account routes: the key is not a session there either.
      ["POST", "/api/auth/change-email", { newEmail: "attacker@example.com" }],
      ["POST", "/api/auth/change-password", { currentPassword: "password123", newPassword: "attacker-password" }],
    ];
    for (const [method, path, body] of attempts) {
      const r = await asKey(apiKey, method, path, body);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(403);
      expect(r.json<{ error: string }>().error).toBe(API_KEY_TEXT.needsSignIn);
    }
    // An admin's key carries none of the admin's powers.
    for (const [method, path] of [
      ["GET", "/api/admin/mcp-servers"],
      ["POST", "/api/admin/mcp-servers/anything/approve"],
    ] as const) {
      refusedFor(await asKey(rootKey, method, path), 403, API_KEY_TEXT.needsSignIn);
    }
    expect((await root.get("/api/admin/mcp-servers")).status).toBe(200);

    // Nothing changed: the same account, the same keys, still on Pro, the old password works.
    const me = (await alice.get("/api/auth/me")).json<{ user: { email: string; username: string; apiKeys: ApiKeyView[] } }>().user;
    expect(me).toMatchObject({ email: "alice@example.com", username: "alice" });
    expect(me.apiKeys.map((k) => k.name)).toEqual(expect.arrayContaining(["claude-desktop", "everything"]));
    expect(me.apiKeys.map((k) => k.name)).not.toContain("persistence");
    expect((await alice.get("/api/subscriptions/current")).json()).toMatchObject({ plan: "pro" });
    await alice.signIn();
  });

  it("the e-mail change works with a sign-in; without one it is a 401, never a 500", async () => {
    const r = await alice.request("PUT", `/api/users/${alice.id}`, { json: { email: "alice.new@example.com" } });
    expect(r.status, r.text).toBe(200);
    const mails = (await send(`${o.base}/dev/outbox.json`)).json<{ to: string; text: string }[]>();
    expect(mails.some((m) => m.to.includes("alice") && /https?:\/\//.test(m.text))).toBe(true);
    // Someone else's address: the same answer (whether an address is registered is not told), and no mail to its holder.
    const before = (await send(`${o.base}/dev/outbox.json`)).json<{ to: string }[]>().filter((m) => m.to.includes("bob@")).length;
    const taken = await alice.request("PUT", `/api/users/${alice.id}`, { json: { email: "bob@example.com" } });
    expect(taken.status, taken.text).toBe(200);
    expect((await send(`${o.base}/dev/outbox.json`)).json<{ to: string }[]>().filter((m) => m.to.includes("bob@")).length).toBe(before);
    expect((await alice.get("/api/auth/me")).json<{ user: { email: string } }>().user.email).toBe("alice@example.com");
    const anonymous = await send(`${o.base}/api/users/${alice.id}`, { method: "PUT", json: { email: "x@example.com" } });
    expect(anonymous.status).toBe(401);
  });
});

describe("resources: a key limited to named deployments", () => {
  let key = "";
  beforeAll(async () => {
    ({ apiKey: key } = await makeKey(alice, { name: "only-one", scopes: ["mcp", "deploy"], resources: ["alice/one"] }));
  });

  it("is listed with what it reaches, and may only name servers its owner can deploy", async () => {
    const listed = (await alice.get("/api/auth/me")).json<{ user: { apiKeys: ApiKeyView[] } }>().user.apiKeys;
    expect(listed.find((k) => k.name === "only-one")?.resources).toEqual(["owned:alice/one"]);
    refusedFor(
      await alice.post("/api/auth/apikeys", { name: "bobs", resources: ["bob/secret"] }),
      400,
      API_KEY_TEXT.unknownResource("bob/secret"),
    );
    refusedFor(
      await alice.post("/api/auth/apikeys", { name: "nothing", resources: ["catalog:no-such-server"] }),
      400,
      API_KEY_TEXT.unknownResource("no-such-server"),
    );
  });

  it("works on its deployment over Streamable HTTP, SSE and 2026-07-28", async () => {
    const modern = await sdkClient(one.url, key);
    expect(textOf(await modern.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    await modern.close();
    const legacy = await sdkClient(one.sse_url, key, { legacy: true });
    expect(textOf(await legacy.callTool({ name: "add", arguments: { a: 4, b: 3 } }))).toBe("7");
    await legacy.close();
    const stateless = await sdkV2Client(one.url, key, "pin");
    expect(textOf(await stateless.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe("2");
    await stateless.close();
  });

  it("is refused on the owner's other deployment over Streamable HTTP, SSE and 2026-07-28, with the resource metadata", async () => {
    scopeRefusal(await initialize(two.url, key), two, GATEWAY_TEXT.keyNotForThis);
    scopeRefusal(
      await raw(two.sse_url, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" } }),
      two,
      GATEWAY_TEXT.keyNotForThis,
    );
    const stateless = await raw(two.url, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "scopes", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
    });
    scopeRefusal(stateless, two, GATEWAY_TEXT.keyNotForThis);
    await expect(sdkV2Client(two.url, key, "pin").then((c) => c.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).rejects.toThrow();
    await expect(sdkClient(two.url, key)).rejects.toThrow();
  });

  it("on the REST API sees only its deployment, and cannot deploy to another server", async () => {
    const all = await asKey(key, "GET", "/api/deployments");
    expect(all.status, all.text).toBe(200);
    const listed = all.json<DeploymentView[]>();
    expect(listed.map((d) => d.id)).toEqual([one.id]);
    // The other deployment is as unknown to it as another user's.
    for (const [method, path] of [
      ["GET", `/api/deployments/${two.id}/logs`],
      ["GET", `/api/deployments/${two.id}/requests`],
      ["DELETE", `/api/deployments/${two.id}`],
    ] as const) {
      expect((await asKey(key, method, path)).status, path).toBe(404);
    }
    refusedFor(
      await asKey(key, "POST", "/api/deploy/alice/two", { repositoryUrl: o.repo.url, env: {} }),
      403,
      API_KEY_TEXT.notForThisServer,
    );
    // The other deployment still runs.
    const [still] = (await alice.get("/api/deployments/server/alice/two")).json<{ deployments: DeploymentView[] }>().deployments;
    expect(still?.status).toBe("running");
  });
});

describe("resources with the servers scope", () => {
  const server = (qualifiedName: string) => ({
    qualifiedName,
    displayName: "Edited by CI",
    description: "Registered by a pipeline",
    repositoryUrl: `https://example.com/${qualifiedName}`,
    keywords: "ci",
    connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
  });

  it("a key limited to one server lists and edits only that one, and registers or submits no other", async () => {
    const { apiKey } = await makeKey(alice, { name: "servers-one", scopes: ["servers"], resources: ["alice/one"] });
    const listed = await asKey(apiKey, "GET", "/api/servers");
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json<{ data: { qualifiedName: string }[] }>().data.map((s) => s.qualifiedName)).toEqual(["alice/one"]);
    expect((await asKey(apiKey, "GET", "/api/servers/alice/one")).status).toBe(200);
    expect((await asKey(apiKey, "PUT", "/api/servers/alice/one", server("alice/one"))).status).toBe(200);
    refusedFor(await asKey(apiKey, "GET", "/api/servers/alice/two"), 403, API_KEY_TEXT.notForThisServer);
    refusedFor(await asKey(apiKey, "PUT", "/api/servers/alice/two", server("alice/two")), 403, API_KEY_TEXT.notForThisServer);
    refusedFor(await asKey(apiKey, "POST", "/api/servers", server("alice/sneaky")), 403, API_KEY_TEXT.notForThisServer);
    const submitted = await asKey(apiKey, "POST", "/api/mcp-servers", {
      name: "Sneaky Catalogue Entry",
      description: "Submitted with a key for one server",
      category: "Data & Storage",
      type: "Community",
      source: "user_submitted",
      tags: ["sneaky"],
      repository_url: "https://github.com/example/sneaky",
      url: "",
      npx_command: "npx -y sneaky-mcp",
    });
    refusedFor(submitted, 403, API_KEY_TEXT.notForThisServer);
    // Nothing was written: alice/two kept its name, no alice/sneaky, no pending entry.
    const mine = (await alice.get("/api/servers")).json<{ data: { qualifiedName: string; displayName: string }[] }>().data;
    expect(mine.map((s) => s.qualifiedName)).not.toContain("alice/sneaky");
    expect(mine.find((s) => s.qualifiedName === "alice/two")?.displayName).not.toBe("Edited by CI");
    const pending = (await root.get("/api/admin/mcp-servers")).text;
    expect(pending).not.toContain("Sneaky Catalogue Entry");
  });

  it("a public route answers a key as it answers anyone: an owner's key reads no owner-only figures there", async () => {
    const { apiKey } = await makeKey(alice, { name: "public-reads", scopes: ["mcp", "deploy", "servers"] });
    const path = "/api/servers/alice/one/tool-stats";
    // Its owner, signed in, sees the server's figures (calls were made above)...
    await expect
      .poll(async () => (await alice.get(path)).json<{ tools: unknown[] }>().tools.length, { timeout: 15_000 })
      .toBeGreaterThan(0);
    // ...a key of the same owner sees what a visitor sees.
    const anonymous = await send(`${o.base}${path}`, { origin: false });
    const withKey = await asKey(apiKey, "GET", path);
    expect(withKey.status, withKey.text).toBe(200);
    expect(withKey.json()).toEqual(anonymous.json());
    expect(withKey.json<{ tools: unknown[] }>().tools).toEqual([]);
  });
});

describe("expiry", () => {
  let other: TestApp;
  beforeAll(async () => {
    // A second web process on the same database: its own pool, its own caches.
    other = await createTestApp({ ROLES: "web", CLUSTER_SECRET: "k".repeat(40) }, { sameDatabaseAs: o.t });
  });
  afterAll(() => other?.close());

  it("an expired key is refused on its next request by the gateway (its grant cached) and by every web process", async () => {
    const expiresAt = new Date(Date.now() + 4000).toISOString();
    const { apiKey, key } = await makeKey(alice, { name: "short-lived", scopes: ["mcp", "deploy"], expiry: "custom", expiresAt });
    expect(key.expiresAt).toBe(expiresAt);
    const session = await rawSession(one.url, apiKey);
    expect((await session.call(2, "tools/list")).status).toBe(200);
    const onOther = () => other.app.request(`${o.base}/api/deployments`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await onOther()).status).toBe(200);
    expect((await asKey(apiKey, "GET", "/api/deployments")).status).toBe(200);

    await new Promise((r) => setTimeout(r, Date.parse(expiresAt) - Date.now() + 50));
    const next = await session.call(3, "tools/list");
    expect(next.status).toBe(401);
    expect(next.json()).toMatchObject({ error: { message: GATEWAY_TEXT.expiredKey } });
    expect(next.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect((await initialize(one.url, apiKey)).status).toBe(401);
    const rest = await onOther();
    expect(rest.status).toBe(401);
    expect(((await rest.json()) as { error: string }).error).toBe(API_KEY_TEXT.expired);
    refusedFor(await asKey(apiKey, "GET", "/api/deployments"), 401, API_KEY_TEXT.expired);
    // Its owner still sees it, marked by its date, to revoke or replace.
    const listed = (await alice.get("/api/auth/me")).json<{ user: { apiKeys: ApiKeyView[] } }>().user.apiKeys;
    expect(listed.find((k) => k.name === "short-lived")).toMatchObject({ expiresAt, lastUsedAt: expect.any(String) });
  });

  it("the streams the key opened (legacy SSE, a session's GET stream) end at its expiry, not at the client's next request", async () => {
    const expiresAt = new Date(Date.now() + 3000).toISOString();
    const { apiKey } = await makeKey(alice, { name: "stream-expiry", scopes: ["mcp"], expiry: "custom", expiresAt });
    const sse = await fetch(one.sse_url, { headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" } });
    expect(sse.status).toBe(200);
    const session = await rawSession(one.url, apiKey);
    const get = await fetch(one.url, { headers: { ...session.headers, accept: "text/event-stream" } });
    expect(get.status).toBe(200);
    /** When the body ended (or broke off); fails if it outlives the key by 10 s. */
    const endOf = (res: Response) =>
      new Promise<number>((resolve, reject) => {
        const reader = res.body!.getReader();
        const timer = setTimeout(
          () => reject(new Error("the stream outlived its key by 10 s")),
          Date.parse(expiresAt) - Date.now() + 10_000,
        );
        const pump = (): Promise<void> =>
          reader.read().then(
            (r) => (r.done ? resolve(Date.now()) : pump()),
            () => resolve(Date.now()),
          );
        void pump().finally(() => clearTimeout(timer));
      });
    for (const ended of await Promise.all([endOf(sse), endOf(get)])) {
      expect(ended).toBeGreaterThanOrEqual(Date.parse(expiresAt) - 50);
      expect(ended).toBeLessThan(Date.parse(expiresAt) + 3000);
    }
  });
});
