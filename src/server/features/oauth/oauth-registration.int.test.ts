import { describe, expect, it } from "vitest";
import { pruneExpired } from "./repo.js";
import { alice, clientId, db, depA, q, sha, t, useOAuthFixture } from "./oauth-fixture.js";
import { publicClient, register, tokensFor } from "./oauth-test-support.js";

// The authorization server's own rules, over HTTP (docs/decisions/010-oauth.md): what it says of
// itself, which clients it registers, and the clients and tokens it prunes. The flows are
// oauth-code-flow.int.test.ts and oauth-grants.int.test.ts; end-to-end clients and the gateway are tested elsewhere.

useOAuthFixture();

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
