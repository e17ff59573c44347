import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { oauthTokens, registerClient } from "~support/gateway-oauth.js";
import { MCP_ACCEPT, newApiKey, raw, rawSession, sdkClient, sseRequest, textOf } from "~support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import type { DeploymentView } from "~/shared/deployments.js";
import { GATEWAY_TEXT } from "./gateway.js";

// OAuth at the gateway over real HTTP: each deployment's URL is a protected resource with its own
// metadata; an access token got through the real authorization flow (registration, PKCE, consent,
// token exchange) works on the one deployment it was granted for, and nowhere else.

let t: TestApp;
let repo: FixtureRepo;
let base: string;
let owner: Client & { id: string };
let a: DeploymentView;
let b: DeploymentView;

const init = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
};
const post = (url: string, headers: Record<string, string> = {}) => raw(url, { headers: { accept: MCP_ACCEPT, ...headers }, body: init });
const prm = (d: DeploymentView) => `${base}/.well-known/oauth-protected-resource/${d.proxy_id}/mcp`;
const tokenFor = (d: DeploymentView, clientId?: string) => oauthTokens(base, owner.jar.header(), d.url, { clientId });

async function deployFixture(c: Client, qn: string, name: string): Promise<DeploymentView> {
  await registerOwnedServer(c, qn, name);
  const r = await c.post(`/api/deploy/${qn}`, { repositoryUrl: repo.url, env: {} });
  expect(r.status, await r.clone().text()).toBe(202);
  return waitForStatus(c, qn, "running", 60_000);
}

beforeAll(async () => {
  const port = await freePort();
  t = await createTestApp({ GIT_ALLOW_FILE: "on", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  base = await t.listen();
  repo = await createFixtureRepo();
  owner = await signedInUser(t, "owner@example.com");
  // Pro (the test checkout): two deployments running at once.
  const checkout = (await (await owner.post("/api/subscriptions/checkout", { plan: "pro", period: "monthly" })).json()) as { url: string };
  expect((await owner.post(`/api/subscriptions/test-checkout/${checkout.url.split("/").pop()}/confirm`)).status).toBe(200);
  a = await deployFixture(owner, "owner/alpha", "Alpha Tools");
  b = await deployFixture(owner, "owner/beta", "Beta Tools");
}, 120_000);
afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
});

describe("a deployment as an OAuth protected resource", () => {
  it("publishes its metadata (RFC 9728) for anyone, CORS-open; an unknown proxy id is a 404", async () => {
    const r = await raw(prm(a));
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.json()).toEqual({
      resource: a.url,
      authorization_servers: [`${base}/api/auth`],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp", "offline_access"],
      resource_name: "Alpha Tools",
    });
    const head = await raw(prm(a), { method: "HEAD" });
    expect([head.status, head.body]).toEqual([200, ""]);
    const pre = await raw(prm(a), { method: "OPTIONS", headers: { origin: "https://claude.ai", "access-control-request-method": "GET" } });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
    const unknown = await raw(`${base}/.well-known/oauth-protected-resource/${"0".repeat(32)}/mcp`);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toEqual({ error: GATEWAY_TEXT.notFound });
  });

  it("every 401 names the metadata; error=invalid_token only when a credential was sent and refused", async () => {
    const ask = `Bearer realm="mcp", resource_metadata="${prm(a)}"`;
    const none = await post(a.url);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe(ask);
    expect(none.json()).toMatchObject({ error: { message: GATEWAY_TEXT.missingKey } });
    const badKey = await post(a.url, { authorization: `Bearer sb_${"x".repeat(43)}` });
    expect(badKey.headers["www-authenticate"]).toBe(`${ask}, error="invalid_token"`);
    expect(badKey.json()).toMatchObject({ error: { message: GATEWAY_TEXT.invalidKey } });
    const badToken = await post(a.url, { authorization: "Bearer not-a-token-we-issued" });
    expect(badToken.status).toBe(401);
    expect(badToken.headers["www-authenticate"]).toBe(`${ask}, error="invalid_token"`);
    expect(badToken.json()).toMatchObject({ error: { message: GATEWAY_TEXT.invalidToken } });
    const legacy = await raw(`${base}/${a.proxy_id}/sse`, { headers: { accept: "text/event-stream" } });
    expect(legacy.status).toBe(401);
    expect(legacy.headers["www-authenticate"]).toBe(ask);
  });
});

describe("OAuth access tokens at the gateway", () => {
  it("a token granted for the deployment works like an API key: tools, resources, prompts", async () => {
    const { accessToken } = await tokenFor(a);
    const client = await sdkClient(a.url, accessToken);
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "with a token" } }))).toBe("with a token");
    expect((await client.getPrompt({ name: "greet", arguments: { name: "Ada" } })).messages).toHaveLength(1);
    await client.close();
  });

  it("a token for deployment A is refused on deployment B (401 invalid_token naming B's metadata), even by the same owner", async () => {
    const { accessToken } = await tokenFor(a);
    expect((await post(a.url, { authorization: `Bearer ${accessToken}` })).status).toBe(200);
    const onB = await post(b.url, { authorization: `Bearer ${accessToken}` });
    expect(onB.status).toBe(401);
    expect(onB.headers["www-authenticate"]).toBe(`Bearer realm="mcp", resource_metadata="${prm(b)}", error="invalid_token"`);
    expect(onB.json()).toMatchObject({ error: { message: GATEWAY_TEXT.invalidToken } });
  });

  it("the REST API refuses an OAuth access token", async () => {
    const { accessToken } = await tokenFor(a);
    for (const path of ["/api/auth/me", "/api/auth/apikeys", "/api/deployments"]) {
      const r = await raw(`${base}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(r.status, path).toBe(401);
    }
    const key = await newApiKey(owner, "rest");
    // An API key opens its scopes' routes (the account itself needs a sign-in).
    expect((await raw(`${base}/api/deployments`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it("an expired token is refused", async () => {
    const { accessToken, clientId } = await tokenFor(a);
    await t.db.database.db.execute(
      sql`update oauth_access_token set expires_at = now() - interval '1 second' where client_id = ${clientId}`,
    );
    const r = await post(a.url, { authorization: `Bearer ${accessToken}` });
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  it("a revoked grant is refused on the very next request, inside a session too", async () => {
    const { accessToken, refreshToken, clientId } = await tokenFor(a);
    const s = await rawSession(a.url, accessToken);
    expect((await s.call(2, "tools/list")).status).toBe(200);
    // RFC 7009: revoking the refresh token takes the access tokens it minted with it.
    const rev = await fetch(`${base}/api/auth/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: refreshToken!, token_type_hint: "refresh_token", client_id: clientId }),
    });
    expect(rev.status).toBe(200);
    const r = await s.call(3, "tools/list");
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  it("a session follows the client's refreshed token; revoking the app on 'Connected apps' ends it, open stream included", async () => {
    const first = await tokenFor(a, await registerClient(base, "Session-following client"));
    const s = await rawSession(a.url, first.accessToken);
    const refreshed = await fetch(`${base}/api/auth/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: first.refreshToken!,
        client_id: first.clientId,
        resource: a.url,
      }),
    });
    expect(refreshed.status).toBe(200);
    const next = ((await refreshed.json()) as { access_token: string }).access_token;
    const headers = { ...s.headers, authorization: `Bearer ${next}` };
    const call = await raw(a.url, {
      headers,
      body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: "refreshed" } } },
    });
    expect(call.json()).toMatchObject({ result: { content: [{ text: "refreshed" }] } });
    const stream = sseRequest(a.url, { method: "GET", headers: { ...headers, accept: "text/event-stream" } });
    expect((await stream.response).statusCode).toBe(200);
    const apps = (await (await owner.get("/api/auth/connected-apps")).json()) as {
      data: { id: string; clientName: string; deployment: { proxyId: string } | null }[];
    };
    const app = apps.data.find((x) => x.clientName === "Session-following client" && x.deployment?.proxyId === a.proxy_id);
    expect(app).toBeDefined();
    expect((await owner.del(`/api/auth/connected-apps/${app!.id}`)).status).toBe(200);
    await expect(stream.next(3000)).resolves.toBeNull(); // the stream ends
    expect((await raw(a.url, { headers, body: { jsonrpc: "2.0", id: 3, method: "tools/list" } })).status).toBe(401);
  });
});
