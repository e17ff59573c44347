import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { startOAuthApp, type OAuthApp } from "../support/oauth-app.js";
import {
  authorizeUrl,
  codeFlow,
  consentQuery,
  exchange,
  mcpInitialize,
  NATIVE_REDIRECT,
  pkce,
  registerClient,
  s256,
  send,
  token,
  type HttpUser,
  type RegisteredClient,
} from "../support/oauth.js";

// The consent step and the code it yields, over real HTTP with the consent JSON the page posts:
// who may approve, from where, and what a code is worth (PKCE, single use, short life).

let o: OAuthApp;
let alice: HttpUser;
let bob: HttpUser;
let depA: DeploymentView; // alice's
let depB: DeploymentView; // bob's
let client: RegisteredClient;
let other: RegisteredClient;

beforeAll(async () => {
  o = await startOAuthApp();
  alice = await o.user("alice@example.com");
  bob = await o.user("bob@example.com");
  depA = await o.deploy(alice, "fixture");
  depB = await o.deploy(bob, "fixture");
  client = await registerClient(o.base, { client_name: "Codes client" });
  other = await registerClient(o.base, { client_name: "Other client" });
}, 180_000);

afterAll(async () => {
  await o?.close();
});

const flow = (user: HttpUser, resource: string, accept = true) => codeFlow(user, { clientId: client.client_id, resource }, accept);
const redeem = (code: string, verifier: string | null, extra: Record<string, string> = {}) =>
  token(o.base, {
    grant_type: "authorization_code",
    code,
    client_id: client.client_id,
    redirect_uri: NATIVE_REDIRECT,
    resource: depA.url,
    ...(verifier === null ? {} : { code_verifier: verifier }),
    ...extra,
  });

/** Authorize (with a client never approved before) and stop at the consent page; the query the page would post. */
async function consentPageQuery(user: HttpUser, resource: string, state = "st") {
  const fresh = await registerClient(o.base, { client_name: "Fresh client" });
  const a = await user.navigate(authorizeUrl(o.base, { clientId: fresh.client_id, resource, state, challenge: pkce().challenge }));
  expect(new URL(a.location!, o.base).pathname).toBe("/oauth/consent");
  return consentQuery(a.location!);
}

describe("consent", () => {
  it("Approve: the code comes back to the client with state and iss (RFC 9207), stored hashed", async () => {
    const f = await flow(alice, depA.url);
    expect(f.consent?.status, f.consent?.text).toBe(200);
    expect(f.callback?.origin + (f.callback?.pathname ?? "")).toBe(NATIVE_REDIRECT);
    expect(f.callback?.searchParams.get("state")).toBe(f.state);
    expect(f.callback?.searchParams.get("iss")).toBe(o.issuer);
    expect(f.code).toMatch(/.{20,}/);
    const rows = await o.t.db.database.db.execute(
      sql`select identifier from verification where identifier in (${f.code}, ${s256(f.code)})`,
    );
    expect(rows.rows).toEqual([{ identifier: s256(f.code) }]);
  });

  it("Deny: access_denied back to the client with state and iss, and no code", async () => {
    const f = await codeFlow(bob, { clientId: other.client_id, resource: depB.url }, false);
    expect(Object.fromEntries(f.callback?.searchParams ?? [])).toMatchObject({ error: "access_denied", state: f.state, iss: o.issuer });
    expect(f.code).toBe("");
  });

  it("posted cross-site (a foreign Origin) it is refused with 403 and yields no code", async () => {
    const q = await consentPageQuery(alice, depA.url);
    const evil = await alice.post("/api/auth/oauth2/consent", { accept: true, oauth_query: q }, { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.text).not.toContain("code=");
    // A form post (what a cross-site page can send without a preflight) is refused too.
    const form = await alice.request("POST", "/api/auth/oauth2/consent", {
      form: { accept: "true", oauth_query: q },
      origin: "https://evil.example",
    });
    expect(form.status).toBe(403);
    expect(form.location ?? "").not.toContain("code=");
    const sameSite = await alice.post("/api/auth/oauth2/consent", { accept: true, oauth_query: q });
    expect(sameSite.status).toBe(200);
    expect(sameSite.location).toContain("code=");
  });

  it("without a session it is refused (403 access_denied)", async () => {
    const q = await consentPageQuery(alice, depA.url);
    const r = await send(`${o.base}/api/auth/oauth2/consent`, { json: { accept: true, oauth_query: q } });
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({ error: "access_denied" });
    expect(r.location ?? "").not.toContain("code=");
  });

  it("a non-owner cannot approve access to someone else's deployment: 403 access_denied, no code", async () => {
    const q = await consentPageQuery(alice, depB.url);
    const r = await alice.post("/api/auth/oauth2/consent", { accept: true, oauth_query: q });
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({ error: "access_denied" });
    expect(r.text).not.toContain("code=");
    // and a token can never be had for B by alice's grant
    const stolen = await codeFlow(alice, { clientId: client.client_id, resource: depB.url }).catch(() => null);
    expect(stolen?.code ?? "").toBe("");
  });
});

describe("the code at the token endpoint", () => {
  it("without a code_verifier: refused (invalid_request)", async () => {
    const f = await flow(alice, depA.url);
    const r = await redeem(f.code, null);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: "invalid_request" });
  });

  it("with a wrong code_verifier: refused (401 invalid_request), and the code is spent", async () => {
    const f = await flow(alice, depA.url);
    const r = await redeem(f.code, pkce().verifier);
    // The plugin's answer; RFC 7636 section 4.6 would say 400 invalid_grant. Either way nothing is issued.
    expect(r.status, r.text).toBe(401);
    expect(r.json()).toMatchObject({ error: "invalid_request" });
    const after = await redeem(f.code, f.verifier);
    expect(after.status).toBe(400);
    expect(after.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("with another client's id, or another redirect_uri: refused", async () => {
    const f = await flow(alice, depA.url);
    const wrongClient = await redeem(f.code, f.verifier, { client_id: other.client_id });
    expect(wrongClient.status).toBe(400);
    expect(wrongClient.json<{ error: string }>().error).toMatch(/^invalid_(grant|client)$/);
    const g = await flow(alice, depA.url);
    const wrongRedirect = await redeem(g.code, g.verifier, { redirect_uri: "http://127.0.0.1:33418/other" });
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.json<{ error: string }>().error).toMatch(/^invalid_(grant|request)$/);
  });

  it("a code for A exchanged naming B gives nothing that works on B", async () => {
    const f = await flow(alice, depA.url);
    const r = await redeem(f.code, f.verifier, { resource: depB.url });
    if (r.status === 200) expect((await mcpInitialize(depB.url, r.json<{ access_token: string }>().access_token)).status).toBe(401);
    else expect(r.json()).toMatchObject({ error: "invalid_target" });
  });

  it("reused: refused (invalid_grant), and the tokens it issued stop working", async () => {
    const f = await flow(alice, depA.url);
    const first = await exchange(o.base, client.client_id, f, depA.url);
    expect(first.token_type.toLowerCase()).toBe("bearer");
    expect((await mcpInitialize(depA.url, first.access_token)).status).toBe(200);
    const again = await redeem(f.code, f.verifier);
    expect(again.status).toBe(400);
    expect(again.json()).toMatchObject({ error: "invalid_grant" });
    const after = await mcpInitialize(depA.url, first.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const refresh = await token(o.base, { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: client.client_id });
    expect(refresh.status).toBe(400);
    expect(refresh.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("expired (codes live 60 s): refused (invalid_grant)", async () => {
    const f = await flow(alice, depA.url);
    const moved = await o.t.db.database.db.execute(
      sql`update verification set expires_at = now() - interval '1 second' where identifier = ${s256(f.code)}`,
    );
    expect(moved.rowCount).toBe(1);
    const r = await redeem(f.code, f.verifier);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("a fresh code used once, with its verifier, gives an opaque access token bound to A, stored hashed", async () => {
    const f = await flow(alice, depA.url);
    const t = await exchange(o.base, client.client_id, f, depA.url);
    expect(t.access_token.split(".")).toHaveLength(1);
    expect(t.refresh_token).toBeTruthy();
    expect(t.expires_in).toBeLessThanOrEqual(3600);
    expect((await mcpInitialize(depA.url, t.access_token)).status).toBe(200);
    expect((await mcpInitialize(depB.url, t.access_token)).status).toBe(401);
    const dump = JSON.stringify(
      (await o.t.db.database.db.execute(sql`select token from oauth_access_token union all select token from oauth_refresh_token`)).rows,
    );
    expect(dump).not.toContain(t.access_token);
    expect(dump).not.toContain(t.refresh_token);
    expect(dump).toContain(s256(t.access_token));
    expect(dump).toContain(s256(t.refresh_token));
  });
});
