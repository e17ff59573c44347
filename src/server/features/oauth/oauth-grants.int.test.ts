import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signedInUser } from "~support/app.js";
import { deleteDeployment, reserveDeployment } from "../deployments/repo.js";
import { listConnectedApps, resourceUrl, verifyAccessToken } from "./index.js";
import { alice, bob, clientId, db, depA, depB, q, S256, t, useOAuthFixture } from "./oauth-fixture.js";
import { addDeployment, authorize, authorizeUrl, consent, publicClient, token, tokensFor } from "./oauth-test-support.js";
import { OAUTH_TEXT } from "~/shared/oauth.js";
import { deploymentResources } from "./deployment-resources.js";

// Who may grant what over HTTP (docs/decisions/010-oauth.md): the resource asked for, redirect
// URIs, the owner's consent; then grants as Connected apps, and as deployments come and go.

useOAuthFixture();

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
      { maxRunning: 100, maxKept: 100 },
      { id: randomUUID(), userId: alice.id, serverKind: "catalog", serverRef: "server-d", source: {}, secrets: "x", proxyId },
      deploymentResources(t.config.PUBLIC_URL),
    );
    expect(res.ok).toBe(true);
    const row = res.ok ? res.row : undefined;
    expect((await q(`select deployment_id from oauth_resource where identifier = $1`, [url])).rows).toEqual([{ deployment_id: row!.id }]);
    const { access } = await tokensFor(t, alice, clientId, url);
    expect(await verifyAccessToken(db(), access)).not.toBeNull();
    await deleteDeployment(db(), row!.id, deploymentResources(t.config.PUBLIC_URL));
    expect((await q(`select count(*)::int n from oauth_resource where identifier = $1`, [url])).rows[0].n).toBe(0);
    expect(
      (await q(`select count(*)::int n from oauth_access_token where resources @> $1::jsonb`, [JSON.stringify([url])])).rows[0].n,
    ).toBe(0);
    expect(await verifyAccessToken(db(), access)).toBeNull();
  });
});
