import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "../../../../tests/support/app.js";
import { deleteDeployment, reserveDeployment } from "../deployments/repo.js";
import { consentContext, listConnectedApps, resourceUrl, verifyAccessToken } from "./index.js";
import { pruneExpired } from "./repo.js";
import {
  addDeployment,
  authorize,
  authorizeUrl,
  codeFor,
  consent,
  pkce,
  publicClient,
  REDIRECT,
  register,
  token,
  tokensFor,
} from "./oauth-test-support.js";
import { OAUTH_TEXT } from "../../../shared/oauth.js";
import { OAUTH_SERVER_TEXT } from "./text.js";

// The authorization server's own rules, over HTTP (docs/decisions/010-oauth.md). End-to-end
// clients and the gateway are tested elsewhere.

let t: TestApp;
let alice: Client & { id: string };
let bob: Client & { id: string };
let depA: { id: string; url: string };
let depB: { id: string; url: string };
let clientId: string;
const q = (s: string, p: unknown[] = []) => t.db.database.pool.query(s, p);
const db = () => t.db.database.db;
const sha = (s: string) => createHash("sha256").update(s).digest("base64url");
const S256 = () => {
  const p = pkce();
  return { code_challenge: p.challenge, code_challenge_method: "S256" };
};

beforeAll(async () => {
  t = await createTestApp();
  alice = await signedInUser(t, "alice@example.com");
  bob = await signedInUser(t, "bob@example.com");
  depA = await addDeployment(t, alice.id, "server-a");
  depB = await addDeployment(t, bob.id, "server-b");
  clientId = await publicClient(t);
});
afterAll(() => t.close());

describe("discovery and registration", () => {
  it("serves authorization server metadata at the path-inserted well-known URL", async () => {
    const r = await t.app.request("/.well-known/oauth-authorization-server/api/auth");
    expect(r.status).toBe(200);
    const md = (await r.json()) as Record<string, unknown>;
    expect(md).toMatchObject({
      issuer: `${t.config.PUBLIC_URL}/api/auth`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${t.config.PUBLIC_URL}/api/auth/oauth2/register`,
      client_id_metadata_document_supported: true,
    });
    expect(md.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    // Only what is reachable is advertised: introspection is not offered.
    expect(md.introspection_endpoint).toBeUndefined();
    for (const key of ["token_endpoint", "registration_endpoint", "revocation_endpoint"]) {
      const res = await t.app.request(String(md[key]).replace(t.config.PUBLIC_URL, ""), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(res.status, key).not.toBe(404);
    }
  });

  it("registers public clients; loopback http makes a native app, other http and custom schemes are refused", async () => {
    const ok = await register(t, { client_name: "x", redirect_uris: ["http://localhost:9999/cb"], token_endpoint_auth_method: "none" });
    expect(ok.status).toBe(201);
    expect(ok.body.client_secret).toBeUndefined();
    for (const uri of ["http://evil.example/cb", "com.example.app:/cb", "javascript:alert(1)"]) {
      const bad = await register(t, { client_name: "x", redirect_uris: [uri], token_endpoint_auth_method: "none" });
      expect(bad.status, uri).toBe(400);
      expect(bad.body.error).toBe("invalid_redirect_uri");
    }
  });

  it("lets browser-based clients register and fetch tokens from their own origin (CORS, no credentials)", async () => {
    const pre = await t.app.request("/api/auth/oauth2/register", {
      method: "OPTIONS",
      headers: { origin: "https://inspector.example", "access-control-request-method": "POST" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    const r = await t.app.request("/api/auth/oauth2/register", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://inspector.example" },
      body: JSON.stringify({ client_name: "web", redirect_uris: ["https://inspector.example/cb"], token_endpoint_auth_method: "none" }),
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const md = await t.app.request("/.well-known/oauth-authorization-server/api/auth", {
      headers: { origin: "https://inspector.example" },
    });
    expect(md.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("does not expose the plugin's client and consent management over HTTP", async () => {
    expect((await alice.get("/api/auth/oauth2/get-consents")).status).toBe(404);
    expect((await alice.get("/api/auth/oauth2/get-clients")).status).toBe(404);
    expect((await alice.post("/api/auth/oauth2/create-client", { redirect_uris: ["https://a.example/cb"] })).status).toBe(404);
  });
});

describe("authorization code with PKCE", () => {
  it("sends a signed-out person to /login with the flow, a signed-in owner to the consent page", async () => {
    const anon = await t.app.request(authorizeUrl(clientId, [depA.url], S256()));
    expect(anon.status).toBe(302);
    expect(anon.headers.get("location")).toMatch(/^\/login\?.*client_id=/);
    // After signing in, the login page resumes the flow with the same query.
    const resumed = await alice.get(`/api/auth/oauth2/authorize${new URL(anon.headers.get("location")!, t.config.PUBLIC_URL).search}`);
    expect(new URL(resumed.headers.get("location")!, t.config.PUBLIC_URL).pathname).toBe("/oauth/consent");
    const a = await authorize(alice, clientId, [depA.url], S256());
    const consentUrl = new URL(a.location, t.config.PUBLIC_URL);
    expect(consentUrl.pathname).toBe("/oauth/consent");
    expect(consentUrl.searchParams.getAll("resource")).toEqual([depA.url]);
    const ctx = await consentContext(db(), t.config, { ...viewer(alice.id) }, consentUrl.searchParams);
    expect(ctx).toEqual({
      clientName: "Test MCP client",
      redirectHost: "127.0.0.1:33418",
      clientUri: null,
      deployment: { serverName: "server-a", serverId: "server-a", url: depA.url },
      scopes: ["mcp", "offline_access"],
    });
    expect(await consentContext(db(), t.config, viewer(bob.id), consentUrl.searchParams)).toEqual({ error: OAUTH_SERVER_TEXT.notOwner });
  });

  it("answers an approval with code, state and iss; stores the code and tokens hashed; binds them to the deployment", async () => {
    const { code, url, verifier } = await codeFor(alice, clientId, depA.url);
    const cb = new URL(url);
    expect(cb.origin + cb.pathname).toBe(REDIRECT);
    expect(cb.searchParams.get("state")).toMatch(/^st-/);
    expect(cb.searchParams.get("iss")).toBe(`${t.config.PUBLIC_URL}/api/auth`);
    expect((await q(`select count(*)::int n from verification where identifier = $1`, [sha(code)])).rows[0].n).toBe(1);
    const r = await token(t, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: depA.url,
    });
    expect(r.status).toBe(200);
    expect((await q(`select count(*)::int n from oauth_access_token where token = $1`, [r.body.access_token])).rows[0].n).toBe(0);
    expect((await q(`select count(*)::int n from oauth_refresh_token where token = $1`, [r.body.refresh_token])).rows[0].n).toBe(0);
    const grant = await verifyAccessToken(db(), r.body.access_token!);
    expect(grant).toMatchObject({ userId: alice.id, clientId, resource: depA.url, scopes: ["mcp", "offline_access"] });
    expect(grant!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(3600_000);
  });

  it("refuses the plain method, a missing challenge and a wrong verifier; errors carry iss and state", async () => {
    const plain = await authorize(alice, clientId, [depA.url], { code_challenge: "x".repeat(43), code_challenge_method: "plain" });
    expect(plain.location).toMatch(/^http:\/\/127\.0\.0\.1:33418\/callback\?error=invalid_request/);
    expect(new URL(plain.location).searchParams.get("iss")).toBe(`${t.config.PUBLIC_URL}/api/auth`);
    expect(new URL(plain.location).searchParams.get("state")).toMatch(/^st-/);
    expect((await authorize(alice, clientId, [depA.url])).location).toMatch(/error=invalid_request/);
    const { code, verifier } = await codeFor(alice, clientId, depA.url);
    const wrong = await token(t, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: pkce().verifier,
      resource: depA.url,
    });
    // The plugin answers 401 invalid_request ("code verification failed") and burns the code.
    expect(wrong).toMatchObject({ status: 401, body: { error: "invalid_request" } });
    const right = await token(t, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: depA.url,
    });
    expect(right.status).toBe(400);
  });

  it("takes a code once: a second use is refused and revokes what the first issued", async () => {
    const gen = t.services.revocations.generation;
    const { access, code, verifier } = await tokensFor(t, alice, clientId, depA.url);
    expect(await verifyAccessToken(db(), access)).not.toBeNull();
    const again = await token(t, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: depA.url,
    });
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await verifyAccessToken(db(), access)).toBeNull();
    expect(t.services.revocations.generation).toBeGreaterThan(gen);
  });

  it("rotates refresh tokens; replaying an old one revokes the whole family", async () => {
    const first = await tokensFor(t, alice, clientId, depA.url);
    const r1 = await token(t, { grant_type: "refresh_token", refresh_token: first.refresh, client_id: clientId, resource: depA.url });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(first.refresh);
    expect(await verifyAccessToken(db(), r1.body.access_token!)).toMatchObject({ resource: depA.url });
    const replay = await token(t, { grant_type: "refresh_token", refresh_token: first.refresh, client_id: clientId });
    expect(replay.status).toBe(400);
    expect(await verifyAccessToken(db(), r1.body.access_token!)).toBeNull();
    expect((await token(t, { grant_type: "refresh_token", refresh_token: r1.body.refresh_token!, client_id: clientId })).status).toBe(400);
  });
});

describe("what may be asked, and who may grant it", () => {
  it.each([
    ["no resource", () => []],
    ["two resources", () => [depA.url, depB.url]],
    ["an unknown deployment", () => [`${t.config.PUBLIC_URL}/${"0".repeat(32)}/mcp`]],
    ["another site's URL", () => ["https://elsewhere.example/x/mcp"]],
  ])("shows the error page for %s, never redirecting to the client", async (_n, resources) => {
    const a = await authorize(alice, clientId, resources(), S256());
    expect(a.status).toBe(302);
    expect(a.location).toMatch(new RegExp(`^${t.config.PUBLIC_URL}/oauth/error\\?error=invalid_target`));
  });

  it("gives a deployment recorded before OAuth existed its resource on first use", async () => {
    const proxyId = randomBytes(16).toString("hex");
    await q(
      `insert into deployments (id, user_id, server_kind, server_ref, source, secrets, proxy_id) values ($1, $2, 'catalog', 'old', '{}'::jsonb, 'x', $3)`,
      [randomUUID(), alice.id, proxyId],
    );
    const url = resourceUrl(t.config.PUBLIC_URL, proxyId);
    const { access } = await tokensFor(t, alice, clientId, url);
    expect(await verifyAccessToken(db(), access)).toMatchObject({ resource: url });
  });

  it("shows the error page for a redirect URI that was not registered (path, or port on a non-loopback host)", async () => {
    const web = await publicClient(t, "https://app.example/cb");
    for (const [id, uri] of [
      [clientId, "http://127.0.0.1:33418/other"],
      [web, "https://app.example/cb/extra"],
      [web, "https://app.example:8443/cb"],
    ] as const) {
      const r = await alice.get(authorizeUrl(id, [depA.url], { ...S256(), redirect_uri: uri }));
      expect(r.headers.get("location"), uri).toMatch(/\/oauth\/error\?error=invalid_redirect/);
    }
    let otherPort = (
      await alice.get(authorizeUrl(clientId, [depA.url], { ...S256(), redirect_uri: "http://127.0.0.1:9999/callback" }))
    ).headers.get("location")!;
    if (otherPort.startsWith("/oauth/consent")) otherPort = (await consent(alice, otherPort)).url;
    expect(otherPort).toMatch(/^http:\/\/127\.0\.0\.1:9999\/callback\?code=/);
  });

  it("lets only the deployment's owner approve; Deny answers access_denied with state and iss", async () => {
    const a = await authorize(alice, clientId, [depB.url], S256());
    expect(new URL(a.location, t.config.PUBLIC_URL).pathname).toBe("/oauth/consent");
    const steal = await consent(alice, a.location);
    expect(steal.status).toBe(403);
    expect(steal.body).toMatchObject({ error: "access_denied" });
    const b = await authorize(bob, clientId, [depB.url], S256());
    const deny = await consent(bob, b.location, false);
    const cb = new URL(deny.url);
    expect(cb.searchParams.get("error")).toBe("access_denied");
    expect(cb.searchParams.get("iss")).toBe(`${t.config.PUBLIC_URL}/api/auth`);
    expect(cb.searchParams.get("state")).toMatch(/^st-/);
  });

  it("refuses a consent posted from another site", async () => {
    const b = await authorize(bob, clientId, [depB.url], S256());
    const r = await consent(bob, b.location, true, { origin: "https://evil.example" });
    expect(r.status).toBe(403);
  });
});

describe("tokens at the REST API, Connected apps, deployments going away", () => {
  it("refuses an OAuth access token at /api", async () => {
    const { access } = await tokensFor(t, alice, clientId, depA.url);
    const r = await t.app.request("/api/auth/me", { headers: { authorization: `Bearer ${access}` } });
    expect(r.status).toBe(401);
  });

  it("lists a connected app per (client, deployment) and revokes it for the next request", async () => {
    const carol = await signedInUser(t, `carol-${randomBytes(3).toString("hex")}@example.com`);
    const dep = await addDeployment(t, carol.id, "server-c");
    const { access, refresh } = await tokensFor(t, carol, clientId, dep.url);
    const list = (await (await carol.get("/api/auth/connected-apps")).json()) as { data: { id: string }[] };
    expect(list.data).toEqual([
      {
        id: expect.any(String),
        clientName: "Test MCP client",
        redirectHost: "127.0.0.1:33418",
        deployment: { id: dep.id, serverId: "server-c", proxyId: dep.proxyId },
        grantedAt: expect.any(String),
        lastUsedAt: null,
      },
    ]);
    const id = list.data[0]!.id;
    expect((await alice.del(`/api/auth/connected-apps/${id}`)).status).toBe(404);
    expect((await t.app.request(`/api/auth/connected-apps`)).status).toBe(401);
    const gen = t.services.revocations.generation;
    const del = await carol.del(`/api/auth/connected-apps/${id}`);
    expect(await del.json()).toEqual({ success: true, message: OAUTH_TEXT.revoked("Test MCP client") });
    expect(t.services.revocations.generation).toBe(gen + 1);
    expect(await verifyAccessToken(db(), access)).toBeNull();
    expect((await token(t, { grant_type: "refresh_token", refresh_token: refresh, client_id: clientId })).status).toBe(400);
    expect(await listConnectedApps(db(), carol.id)).toEqual([]);
    // Asked again: the consent went with the grant.
    expect(new URL((await authorize(carol, clientId, [dep.url], S256())).location, t.config.PUBLIC_URL).pathname).toBe("/oauth/consent");
  });

  it("creates the resource with the deployment and deletes it, with its tokens, with the deployment", async () => {
    const proxyId = randomBytes(16).toString("hex");
    const url = resourceUrl(t.config.PUBLIC_URL, proxyId);
    const res = await reserveDeployment(
      db(),
      { maxRunning: 100, maxDeploysPerMonth: 100 },
      { id: randomUUID(), userId: alice.id, serverKind: "catalog", serverRef: "server-d", source: {}, secrets: "x", proxyId },
      url,
    );
    expect(res.ok).toBe(true);
    const row = res.ok ? res.row : undefined;
    expect((await q(`select deployment_id from oauth_resource where identifier = $1`, [url])).rows).toEqual([{ deployment_id: row!.id }]);
    const { access } = await tokensFor(t, alice, clientId, url);
    expect(await verifyAccessToken(db(), access)).not.toBeNull();
    await deleteDeployment(db(), row!.id);
    expect((await q(`select count(*)::int n from oauth_resource where identifier = $1`, [url])).rows[0].n).toBe(0);
    expect(
      (await q(`select count(*)::int n from oauth_access_token where resources @> $1::jsonb`, [JSON.stringify([url])])).rows[0].n,
    ).toBe(0);
    expect(await verifyAccessToken(db(), access)).toBeNull();
  });
});

describe("housekeeping", () => {
  it("prunes clients never granted anything after a day, and long-expired tokens", async () => {
    const idle = await publicClient(t);
    const { access } = await tokensFor(t, alice, clientId, depA.url);
    await q(`update oauth_client set created_at = now() - interval '2 days' where client_id in ($1, $2)`, [idle, clientId]);
    await q(`update oauth_access_token set expires_at = now() - interval '2 days' where token = $1`, [sha(access)]);
    await pruneExpired(db());
    expect((await q(`select client_id from oauth_client where client_id in ($1, $2)`, [idle, clientId])).rows).toEqual([
      { client_id: clientId },
    ]);
    expect((await q(`select count(*)::int n from oauth_access_token where token = $1`, [sha(access)])).rows[0].n).toBe(0);
  });
});

function viewer(id: string) {
  return { id, email: "", emailVerified: true, username: "", fullName: "", isAdmin: false };
}
