import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { startOAuthApp, type OAuthApp } from "../support/oauth-app.js";
import {
  authorizeUrl,
  codeFlow,
  consentQuery,
  mcpInitialize,
  NATIVE_REDIRECT,
  pkce,
  registerClient,
  send,
  type Answer,
  type HttpUser,
  type RegisteredClient,
} from "../support/oauth.js";

// The discovery chain and the authorization endpoint over real HTTP, as an MCP client and a browser
// meet them: what a 401 points to, what the metadata says, and every way an authorization request
// can be wrong - each with the answer it must get. Errors about the client or its redirect URI
// never send the browser anywhere but Switchboard's own error page.

let o: OAuthApp;
let alice: HttpUser;
let dep: DeploymentView;
let native: RegisteredClient;
let web: RegisteredClient;
const WEB_REDIRECT = "https://client.example/cb";
const EVIL = "https://evil.example/cb";

beforeAll(async () => {
  o = await startOAuthApp();
  alice = await o.user("alice@example.com");
  dep = await o.deploy(alice, "fixture");
  native = await registerClient(o.base, { client_name: "Native client", application_type: "native" });
  web = await registerClient(o.base, { client_name: "Web client", redirect_uris: [WEB_REDIRECT] });
}, 180_000);

afterAll(async () => {
  await o?.close();
});

const params = (u: URL) => Object.fromEntries(u.searchParams);
const at = (a: Answer) => new URL(a.location ?? "about:blank", o.base);

/** The answer sends the browser to Switchboard's own error page, naming `error`; never to a client. */
function toErrorPage(a: Answer, error: string) {
  expect(a.status, a.text.slice(0, 200)).toBe(302);
  const u = at(a);
  expect(u.origin).toBe(o.base);
  expect(u.pathname).not.toBe("/oauth/consent");
  expect(u.searchParams.get("error")).toBe(error);
  expect(u.searchParams.has("code")).toBe(false);
}

/** The answer goes back to the client's redirect URI with an OAuth error, its state and the issuer. */
function toClientError(a: Answer, redirect: string, error: string, state: string) {
  expect(a.status, a.text.slice(0, 200)).toBe(302);
  const u = at(a);
  expect(`${u.origin}${u.pathname}`).toBe(redirect);
  expect(params(u)).toMatchObject({ error, state, iss: o.issuer });
  expect(u.searchParams.has("code")).toBe(false);
}

const ask = (p: Parameters<typeof authorizeUrl>[1], user: HttpUser | null = alice) =>
  user ? user.navigate(authorizeUrl(o.base, p)) : send(authorizeUrl(o.base, p), { navigate: true });

describe("discovery from a deployment's 401", () => {
  it("the 401 names the deployment's protected resource metadata; a bad token also says invalid_token", async () => {
    const prm = `${o.base}/.well-known/oauth-protected-resource/${dep.proxy_id}/mcp`;
    const none = await mcpInitialize(dep.url);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe(`Bearer realm="mcp", resource_metadata="${prm}"`);
    const bad = await mcpInitialize(dep.url, "not-a-real-token");
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toMatch(/^Bearer realm="mcp"/);
    expect(bad.headers.get("www-authenticate")).toContain(`resource_metadata="${prm}"`);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    for (const path of ["sse", "messages"]) {
      const r = await send(`${o.base}/${dep.proxy_id}/${path}`, { headers: { accept: "text/event-stream" } });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toContain(`resource_metadata="${prm}"`);
    }
  });

  it("the protected resource metadata (RFC 9728) names the deployment and Switchboard as its authorization server", async () => {
    const r = await send(`${o.base}/.well-known/oauth-protected-resource/${dep.proxy_id}/mcp`);
    expect(r.status).toBe(200);
    const m = r.json<Record<string, unknown>>();
    expect(m).toMatchObject({ resource: dep.url, authorization_servers: [o.issuer], bearer_methods_supported: ["header"] });
    expect(m.scopes_supported).toEqual(expect.arrayContaining(["mcp"]));
    expect((await send(`${o.base}/.well-known/oauth-protected-resource/${"0".repeat(32)}/mcp`)).status).toBe(404);
  });

  it("the authorization server metadata (RFC 8414) offers S256 only, iss in responses, DCR, metadata documents, revocation", async () => {
    const r = await send(`${o.base}/.well-known/oauth-authorization-server/api/auth`);
    expect(r.status).toBe(200);
    const m = r.json<Record<string, unknown>>();
    expect(m).toMatchObject({
      issuer: o.issuer,
      authorization_endpoint: `${o.issuer}/oauth2/authorize`,
      token_endpoint: `${o.issuer}/oauth2/token`,
      registration_endpoint: `${o.issuer}/oauth2/register`,
      revocation_endpoint: `${o.issuer}/oauth2/revoke`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(m.response_types_supported).toEqual(["code"]);
    expect(m.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
  });
});

describe("the authorization request", () => {
  it("signed out, it goes to the login page carrying the request", async () => {
    const a = await ask({ clientId: native.client_id, resource: dep.url, state: "s1", challenge: pkce().challenge }, null);
    expect(a.status).toBe(302);
    const u = at(a);
    expect(u.origin + u.pathname).toBe(`${o.base}/login`);
    expect(u.searchParams.get("client_id")).toBe(native.client_id);
    expect(u.searchParams.get("response_type")).toBe("code");
  });

  it("signed in, it goes to the consent page naming the client and the deployment", async () => {
    const a = await ask({ clientId: native.client_id, resource: dep.url, state: "s2", challenge: pkce().challenge });
    const u = at(a);
    expect(u.origin + u.pathname).toBe(`${o.base}/oauth/consent`);
    expect(u.searchParams.get("client_id")).toBe(native.client_id);
    expect(u.searchParams.get("resource")).toBe(dep.url);
  });

  it("without a resource, with two, or naming no deployment: invalid_target on the error page", async () => {
    for (const resource of [
      null,
      [dep.url, `${o.base}/${"1".repeat(32)}/mcp`],
      `${o.base}/${"1".repeat(32)}/mcp`,
      `${o.base}/api`,
      dep.url.replace(/\/mcp$/, "/sse"),
    ]) {
      const a = await ask({ clientId: native.client_id, resource, state: "s3", challenge: pkce().challenge });
      toErrorPage(a, "invalid_target");
    }
  });

  it("without PKCE: invalid_request back to the client", async () => {
    const a = await ask({ clientId: native.client_id, resource: dep.url, state: "s4", challenge: null, method: null });
    toClientError(a, NATIVE_REDIRECT, "invalid_request", "s4");
  });

  it("with the plain PKCE method: invalid_request back to the client, naming S256", async () => {
    const a = await ask({ clientId: native.client_id, resource: dep.url, state: "s5", challenge: "x".repeat(43), method: "plain" });
    toClientError(a, NATIVE_REDIRECT, "invalid_request", "s5");
    expect(at(a).searchParams.get("error_description")).toMatch(/S256/);
  });
});

describe("redirect URIs match exactly what the client registered", () => {
  it("registration refuses http redirect URIs on a non-loopback host", async () => {
    const r = await send(`${o.base}/api/auth/oauth2/register`, {
      origin: false,
      json: { client_name: "bad", redirect_uris: ["http://client.example/cb"], token_endpoint_auth_method: "none" },
    });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: "invalid_redirect_uri" });
  });

  it("a loopback redirect may use any port (RFC 8252), nothing else may differ", async () => {
    const ok = await ask({
      clientId: native.client_id,
      resource: dep.url,
      redirectUri: "http://127.0.0.1:9999/callback",
      challenge: pkce().challenge,
    });
    expect(at(ok).pathname).toBe("/oauth/consent");
    for (const redirectUri of [
      "http://127.0.0.1:33418/other",
      "http://127.0.0.1:33418/callback/x",
      "http://127.0.0.2:33418/callback",
      "https://127.0.0.1:33418/callback",
    ]) {
      toErrorPage(
        await ask({ clientId: native.client_id, resource: dep.url, redirectUri, state: "s6", challenge: pkce().challenge }),
        "invalid_redirect",
      );
    }
  });

  it("an https redirect differing by path, port, scheme, query or fragment is refused on the error page", async () => {
    const ok = await ask({ clientId: web.client_id, resource: dep.url, redirectUri: WEB_REDIRECT, challenge: pkce().challenge });
    expect(at(ok).pathname).toBe("/oauth/consent");
    for (const redirectUri of [
      "https://client.example/cb/x",
      "https://client.example/other",
      "https://client.example:8443/cb",
      "http://client.example/cb",
      "https://client.example/cb?x=1",
      "https://client.example/cb#f",
      "https://client.example.evil.example/cb",
    ]) {
      toErrorPage(
        await ask({ clientId: web.client_id, resource: dep.url, redirectUri, state: "s7", challenge: pkce().challenge }),
        "invalid_redirect",
      );
    }
  });
});

describe("open redirects through error paths", () => {
  const neverEvil = (a: Answer) => {
    expect(a.location ?? "").not.toContain("evil.example");
    expect(a.status).not.toBe(307);
    if (a.location) expect(at(a).origin).toBe(o.base);
  };

  it("an unknown client or an unregistered redirect never sends the browser to that redirect, whatever else is wrong", async () => {
    const cases: Parameters<typeof authorizeUrl>[1][] = [
      { clientId: "no-such-client", resource: dep.url, redirectUri: EVIL, state: "x", challenge: pkce().challenge },
      { clientId: native.client_id, resource: dep.url, redirectUri: EVIL, state: "x", challenge: pkce().challenge },
      { clientId: native.client_id, resource: dep.url, redirectUri: EVIL, state: "x", challenge: null, method: null },
      { clientId: native.client_id, resource: null, redirectUri: EVIL, state: "x", challenge: pkce().challenge },
      {
        clientId: native.client_id,
        resource: dep.url,
        redirectUri: EVIL,
        state: "x",
        challenge: pkce().challenge,
        extra: { response_type: "token" },
      },
      {
        clientId: native.client_id,
        resource: dep.url,
        redirectUri: EVIL,
        state: "x",
        challenge: pkce().challenge,
        extra: { prompt: "none" },
      },
      { clientId: native.client_id, resource: dep.url, redirectUri: EVIL, state: "x", challenge: pkce().challenge, scope: "admin" },
      {
        clientId: native.client_id,
        resource: dep.url,
        redirectUri: "http://127.0.0.1:33418@evil.example/callback",
        state: "x",
        challenge: pkce().challenge,
      },
      { clientId: native.client_id, resource: dep.url, redirectUri: "//evil.example/cb", state: "x", challenge: pkce().challenge },
    ];
    for (const p of cases) {
      neverEvil(await ask(p));
      neverEvil(await ask(p, null));
    }
  });

  it("the error page only shows the error (escaped) and sends nobody anywhere", async () => {
    const first = at(await ask({ clientId: "no-such-client", resource: dep.url, redirectUri: EVIL, challenge: pkce().challenge }));
    const page = await send(first.href, { navigate: true });
    expect(page.status).toBeLessThan(500);
    expect(page.location).toBeNull();
    const crafted = await send(
      `${first.origin}${first.pathname}?error=invalid_client&error_description=${encodeURIComponent('<script>alert(1)</script><a href="https://evil.example/cb">go</a>')}`,
      { navigate: true },
    );
    expect(crafted.location).toBeNull();
    expect(crafted.text).not.toContain("<script>alert(1)</script>");
    expect(crafted.text).not.toContain('href="https://evil.example');
  });

  it("a consent whose signed query was altered to point elsewhere is refused without a redirect", async () => {
    const a = await ask({ clientId: native.client_id, resource: dep.url, state: "s8", challenge: pkce().challenge });
    const q = new URLSearchParams(consentQuery(a.location!));
    q.set("redirect_uri", EVIL);
    const c = await alice.post("/api/auth/oauth2/consent", { accept: true, oauth_query: q.toString() });
    expect(c.status).toBeGreaterThanOrEqual(400);
    expect(c.status).toBeLessThan(500);
    neverEvil(c);
    expect(c.text).not.toContain("code=");
  });

  it("the login page's resume and the consent page never lead to an unregistered redirect", async () => {
    const q = new URLSearchParams({
      response_type: "code",
      client_id: native.client_id,
      redirect_uri: EVIL,
      state: "x",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      resource: dep.url,
    });
    const login = await alice.navigate(`/login?${q}`);
    expect(login.status).toBe(302);
    expect(login.location).toMatch(/^\/api\/auth\/oauth2\/authorize\?/);
    neverEvil(await alice.navigate(login.location!));
    const consent = await alice.navigate(`/oauth/consent?${q}`);
    expect(consent.status).toBe(400);
    expect(consent.location).toBeNull();
    expect(consent.text).not.toContain("evil.example");
  });

  it("a well-formed request still works afterwards (the checks above were about the request, not the client)", async () => {
    const f = await codeFlow(alice, { clientId: native.client_id, resource: dep.url });
    expect(f.callback?.origin + (f.callback?.pathname ?? "")).toBe(NATIVE_REDIRECT);
    expect(f.code).not.toBe("");
  });
});
