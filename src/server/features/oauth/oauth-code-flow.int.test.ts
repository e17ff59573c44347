import { describe, expect, it } from "vitest";
import { consentContext, verifyAccessToken } from "./index.js";
import { alice, bob, clientId, db, depA, q, S256, sha, t, useOAuthFixture } from "./oauth-fixture.js";
import { authorize, authorizeUrl, codeFor, pkce, REDIRECT, token, tokensFor } from "./oauth-test-support.js";
import { OAUTH_SERVER_TEXT } from "./text.js";

// The authorization code flow with PKCE over HTTP (docs/decisions/010-oauth.md): consent, codes
// taken once, tokens stored hashed and bound to the deployment, refresh tokens rotated.

useOAuthFixture();

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

function viewer(id: string) {
  return { id, email: "", emailVerified: true, username: "", fullName: "", isAdmin: false };
}
