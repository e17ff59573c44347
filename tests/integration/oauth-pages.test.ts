// The OAuth screens as the server renders them: the consent page (who, where the answer goes,
// which deployment), its refusals and headers, the error page, and the login page resuming an
// authorization request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAUTH_SERVER_TEXT } from "~/server/features/oauth/index.js";
import { OAUTH_TEXT } from "~/shared/oauth.js";
import { startOAuthApp, type OAuthApp } from "../support/oauth-app.js";
import { authorizeUrl, NATIVE_REDIRECT, pkce, registerClient, send, type HttpUser } from "../support/oauth.js";

let app: OAuthApp;
let owner: HttpUser;
let other: HttpUser;
let resource: string;
let clientId: string;

beforeAll(async () => {
  app = await startOAuthApp();
  owner = await app.user("pages-owner@example.com");
  other = await app.user("pages-other@example.com");
  resource = (await app.deploy(owner, "consent-demo")).url;
  clientId = (await registerClient(app.base, { client_name: "Pages Test Client" })).client_id;
}, 120_000);
afterAll(() => app?.close());

/** A text as React writes it into HTML. */
const html = (s: string) => s.replaceAll("&", "&amp;").replaceAll("'", "&#x27;").replaceAll('"', "&quot;");

const authorize = (extra: Record<string, string> = {}) =>
  authorizeUrl(app.base, { clientId, resource, challenge: pkce().challenge, state: "st-pages", extra });

/** The consent page's path and query the authorization server sends the owner to. */
async function consentPath(user: HttpUser): Promise<string> {
  const a = await user.get(authorize());
  const loc = new URL(a.location ?? "", app.base);
  expect(loc.pathname).toBe("/oauth/consent");
  return `${loc.pathname}${loc.search}`;
}

describe("the consent page", () => {
  it("names the client, the host the answer goes to and the deployment; cannot be framed or cached", async () => {
    const r = await owner.get(await consentPath(owner));
    expect(r.status).toBe(200);
    expect(r.text).toContain(html(OAUTH_TEXT.consentTitle("Pages Test Client", "consent-demo")));
    expect(r.text).toMatch(/data-testid="consent-redirect-host"[^>]*>127\.0\.0\.1:33418</);
    expect(r.text).toContain(resource);
    expect(r.text).toContain(html(OAUTH_TEXT.mayUse));
    expect(r.text).toContain(html(OAUTH_TEXT.mayRefresh));
    expect(r.text).toMatch(/>Approve</);
    expect(r.text).toMatch(/>Deny</);
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  it("shows someone else's deployment as a refusal, without buttons", async () => {
    const path = await consentPath(owner);
    const r = await other.get(path);
    expect(r.status).toBe(400);
    expect(r.text).toContain(html(OAUTH_TEXT.consentUnavailable));
    expect(r.text).toContain(html(OAUTH_SERVER_TEXT.notOwner));
    expect(r.text).not.toMatch(/>Approve</);
  });

  it("sends a signed-out visitor to log in with the request, and back to it afterwards", async () => {
    const path = await consentPath(owner);
    const r = await send(`${app.base}${path}`);
    expect(r.status).toBe(302);
    const login = new URL(r.location!, app.base);
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("client_id")).toBe(clientId);
    expect(login.searchParams.get("resource")).toBe(resource);
    // Signed in, the login page hands the request back to the authorization endpoint.
    const again = await owner.get(`${login.pathname}${login.search}`);
    expect(again.status).toBe(302);
    const next = new URL(again.location!, app.base);
    expect(next.pathname).toBe("/api/auth/oauth2/authorize");
    expect(next.searchParams.get("client_id")).toBe(clientId);
    expect(next.searchParams.has("sig")).toBe(false);
    expect(new URL((await owner.get(again.location!)).location!, app.base).pathname).toBe("/oauth/consent");
  });
});

describe("the login page during an authorization request", () => {
  it("is where the authorization server sends a signed-out person; its links keep the request", async () => {
    const a = await send(authorize());
    const login = new URL(a.location ?? "", app.base);
    expect(login.pathname).toBe("/login");
    const page = await send(`${app.base}${login.pathname}${login.search}`);
    expect(page.status).toBe(200);
    const signUp = /href="(\/register\?[^"]+)"/.exec(page.text)?.[1]?.replaceAll("&amp;", "&");
    expect(new URLSearchParams(signUp!.split("?")[1]).get("client_id")).toBe(clientId);
    const register = await send(`${app.base}${signUp}`);
    const logIn = /href="(\/login\?[^"]+)"/.exec(register.text)?.[1]?.replaceAll("&amp;", "&");
    expect(new URLSearchParams(logIn!.split("?")[1]).get("resource")).toBe(resource);
  });

  it("asks a signed-in person to log in again when the client says prompt=login", async () => {
    const q = new URLSearchParams({ client_id: clientId, response_type: "code", prompt: "login", resource });
    expect((await owner.get(`/login?${q}`)).status).toBe(200);
    expect((await owner.get("/login")).location).toBe("/");
  });
});

describe("the docs page", () => {
  it("explains both ways to connect: an API key header, or OAuth with a connector", async () => {
    const r = await send(`${app.base}/docs`);
    expect(r.text).toContain("API Keys and OAuth");
    expect(r.text).toContain("Authorization: Bearer YOUR_API_KEY");
    expect(r.text).toContain("Settings &gt; Connectors &gt; Add custom connector");
    expect(r.text).toContain("/YOUR_PROXY_ID/mcp");
  });
});

describe("the error page", () => {
  it("explains the error, never links to the client, and escapes what it shows", async () => {
    const q = new URLSearchParams({ error: "invalid_redirect", error_description: "<script>alert(1)</script>" });
    const r = await send(`${app.base}/oauth/error?${q}`);
    expect(r.status).toBe(400);
    expect(r.text).toContain(html(OAUTH_TEXT.errorTitle));
    expect(r.text).toContain(html(OAUTH_TEXT.errorKinds.invalid_redirect!));
    expect(r.text).not.toContain("<script>alert(1)</script>");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
  });

  it("is where an unregistered redirect address ends, never the client", async () => {
    const bad = authorizeUrl(app.base, {
      clientId,
      resource,
      challenge: pkce().challenge,
      redirectUri: "http://127.0.0.1:33418/elsewhere",
    });
    let r = await owner.get(bad);
    for (let i = 0; i < 3 && r.location && !r.location.includes("/oauth/error"); i++) {
      expect(r.location.startsWith("http://127.0.0.1:33418")).toBe(false);
      r = await owner.get(new URL(r.location, app.base).toString());
    }
    const end = new URL(r.location ?? "", app.base);
    expect(end.origin).toBe(app.base);
    expect(end.pathname).toBe("/oauth/error");
    expect(NATIVE_REDIRECT.startsWith(end.origin)).toBe(false);
  });
});
