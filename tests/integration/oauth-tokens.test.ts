import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { startOAuthApp, type OAuthApp } from "../support/oauth-app.js";
import {
  codeFlow,
  exchange,
  mcpInitialize,
  registerClient,
  send,
  token,
  type HttpUser,
  type RegisteredClient,
  type Tokens,
} from "../support/oauth.js";

// What an access token is good for, and for how long: one deployment only (not the owner's other
// deployments, not someone else's, not the REST API), refreshed with rotation, and dead on the
// next request once revoked - through RFC 7009, a replayed refresh token, or 'Connected apps'.

let o: OAuthApp;
let alice: HttpUser;
let bob: HttpUser;
let depA: DeploymentView;
let depA2: DeploymentView; // alice's other deployment
let depB: DeploymentView; // bob's
let client: RegisteredClient;
let apiKey: string;

beforeAll(async () => {
  o = await startOAuthApp();
  alice = await o.user("alice@example.com");
  bob = await o.user("bob@example.com");
  await o.pro(alice); // two deployments running at once
  [depA, depA2] = [await o.deploy(alice, "fixture"), await o.deploy(alice, "second")];
  depB = await o.deploy(bob, "fixture");
  client = await registerClient(o.base, { client_name: "Tokens client" });
  apiKey = (await alice.post("/api/auth/apikeys", { name: "laptop", scopes: ["mcp", "deploy"] })).json<{ apiKey: string }>().apiKey;
}, 240_000);

afterAll(async () => {
  await o?.close();
});

async function tokensFor(user: HttpUser, dep: DeploymentView, c = client): Promise<Tokens> {
  const redirectUri = c.redirect_uris[0]!;
  const f = await codeFlow(user, { clientId: c.client_id, resource: dep.url, redirectUri });
  return exchange(o.base, c.client_id, f, dep.url, redirectUri);
}

const refresh = (rt: string, c = client) => token(o.base, { grant_type: "refresh_token", refresh_token: rt, client_id: c.client_id });

async function refused(url: string, bearer: string) {
  const r = await mcpInitialize(url, bearer);
  expect(r.status, r.text).toBe(401);
  const challenge = r.headers.get("www-authenticate") ?? "";
  expect(challenge).toContain('error="invalid_token"');
  expect(challenge).toContain(`resource_metadata="${o.base}/.well-known/oauth-protected-resource/`);
}

interface ConnectedApp {
  id: string;
  clientName: string;
  redirectHost: string;
  deployment: { id: string; serverId: string; proxyId: string } | null;
  grantedAt: string;
  lastUsedAt: string | null;
}
const connectedApps = async (user: HttpUser) => (await user.get("/api/auth/connected-apps")).json<{ data: ConnectedApp[] }>().data;

describe("audience: a token works on its deployment only", () => {
  it("works on A; refused on the owner's other deployment, on someone else's, and on the REST API", async () => {
    const t = await tokensFor(alice, depA);
    expect((await mcpInitialize(depA.url, t.access_token)).status).toBe(200);
    await refused(depA2.url, t.access_token);
    await refused(depB.url, t.access_token);
    for (const path of ["/api/auth/me", "/api/auth/connected-apps", "/api/servers", `/api/deployments/server/alice/fixture`]) {
      const r = await send(`${o.base}${path}`, { headers: { authorization: `Bearer ${t.access_token}` } });
      expect(r.status, `${path}: ${r.text}`).toBe(401);
    }
    const write = await send(`${o.base}/api/auth/apikeys`, {
      json: { name: "via-oauth" },
      headers: { authorization: `Bearer ${t.access_token}` },
    });
    expect(write.status).toBe(401);
  });

  it("API keys keep working where their scopes reach; the account's pages need a sign-in", async () => {
    expect((await mcpInitialize(depA.url, apiKey)).status).toBe(200);
    expect((await mcpInitialize(depA2.url, apiKey)).status).toBe(200);
    expect((await send(`${o.base}/api/deployments`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    for (const path of ["/api/auth/me", "/api/auth/connected-apps"]) {
      const r = await send(`${o.base}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(r.status, path).toBe(403);
      expect(r.json()).toMatchObject({ error: API_KEY_TEXT.needsSignIn });
    }
  });

  it("a token for bob's deployment, granted by bob, is refused everywhere else", async () => {
    const t = await tokensFor(bob, depB);
    expect((await mcpInitialize(depB.url, t.access_token)).status).toBe(200);
    await refused(depA.url, t.access_token);
  });
});

describe("refresh", () => {
  it("rotates: a new refresh token and a new access token, still bound to A", async () => {
    const t = await tokensFor(alice, depA);
    const r = await refresh(t.refresh_token);
    expect(r.status, r.text).toBe(200);
    const n = r.json<Tokens>();
    expect(n.refresh_token).not.toBe(t.refresh_token);
    expect(n.access_token).not.toBe(t.access_token);
    expect((await mcpInitialize(depA.url, n.access_token)).status).toBe(200);
    await refused(depA2.url, n.access_token);
  });

  it("replaying an old refresh token is refused (invalid_grant) and revokes the family on the next request", async () => {
    const t = await tokensFor(alice, depA);
    const n = (await refresh(t.refresh_token)).json<Tokens>();
    expect((await mcpInitialize(depA.url, n.access_token)).status).toBe(200); // now in the gateway's cache
    const replay = await refresh(t.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.json()).toMatchObject({ error: "invalid_grant" });
    await refused(depA.url, n.access_token);
    const next = await refresh(n.refresh_token);
    expect(next.status).toBe(400);
    expect(next.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("a refresh token only works for the client it was issued to", async () => {
    const t = await tokensFor(alice, depA);
    const thief = await registerClient(o.base, { client_name: "Thief" });
    const r = await refresh(t.refresh_token, thief);
    expect(r.status).toBe(400);
    expect(r.json<{ error: string }>().error).toMatch(/^invalid_(grant|client)$/);
  });
});

describe("revocation takes effect on the next request", () => {
  it("RFC 7009: revoking the refresh token kills the access tokens it minted; revoking an access token kills it", async () => {
    const t = await tokensFor(alice, depA);
    expect((await mcpInitialize(depA.url, t.access_token)).status).toBe(200);
    const rev = await send(`${o.base}/api/auth/oauth2/revoke`, {
      origin: false,
      form: { token: t.refresh_token, token_type_hint: "refresh_token", client_id: client.client_id },
    });
    expect(rev.status, rev.text).toBe(200);
    await refused(depA.url, t.access_token);
    expect((await refresh(t.refresh_token)).status).toBe(400);

    const u = await tokensFor(alice, depA);
    expect((await mcpInitialize(depA.url, u.access_token)).status).toBe(200);
    expect(
      (
        await send(`${o.base}/api/auth/oauth2/revoke`, {
          origin: false,
          form: { token: u.access_token, token_type_hint: "access_token", client_id: client.client_id },
        })
      ).status,
    ).toBe(200);
    await refused(depA.url, u.access_token);
  });

  it("Connected apps lists the grant; revoking it ends its access and refresh tokens and asks for consent again", async () => {
    const app = await registerClient(o.base, { client_name: "Listed client", redirect_uris: ["http://127.0.0.1:40001/cb"] });
    const t = await tokensFor(alice, depA, app);
    expect((await mcpInitialize(depA.url, t.access_token)).status).toBe(200);
    // Asked once: the next authorization for the same client and deployment skips the consent page.
    const again = await codeFlow(alice, { clientId: app.client_id, resource: depA.url, redirectUri: "http://127.0.0.1:40001/cb" });
    expect(again.consent).toBeUndefined();
    expect(again.code).not.toBe("");

    let listed: ConnectedApp | undefined;
    for (let i = 0; i < 50 && !listed?.lastUsedAt; i++) {
      listed = (await connectedApps(alice)).find((a) => a.clientName === "Listed client");
      if (!listed?.lastUsedAt) await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed).toMatchObject({ clientName: "Listed client", deployment: { proxyId: depA.proxy_id, id: depA.id } });
    expect(listed!.redirectHost).toContain("127.0.0.1");
    expect(Date.parse(listed!.grantedAt)).not.toBeNaN();
    expect(listed!.lastUsedAt).not.toBeNull();
    expect((await connectedApps(bob)).map((a) => a.id)).not.toContain(listed!.id);

    // Only its owner can revoke it.
    expect((await bob.del(`/api/auth/connected-apps/${listed!.id}`)).status).toBe(404);
    expect((await send(`${o.base}/api/auth/connected-apps/${listed!.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await mcpInitialize(depA.url, t.access_token)).status).toBe(200);

    const del = await alice.del(`/api/auth/connected-apps/${listed!.id}`);
    expect(del.status, del.text).toBe(200);
    expect(del.json()).toMatchObject({ success: true });
    await refused(depA.url, t.access_token);
    const r = await refresh(t.refresh_token, app);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: "invalid_grant" });
    expect((await connectedApps(alice)).map((a) => a.id)).not.toContain(listed!.id);
    const after = await codeFlow(alice, { clientId: app.client_id, resource: depA.url, redirectUri: "http://127.0.0.1:40001/cb" });
    expect(after.consent).toBeDefined();
  });

  it("Connected apps needs a signed-in user (or an API key)", async () => {
    const r = await send(`${o.base}/api/auth/connected-apps`);
    expect(r.status).toBe(401);
    expect(r.json()).toMatchObject({ error: "Authentication required" });
  });
});
