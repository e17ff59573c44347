import { describe, expect, it } from "vitest";
import { OAUTH_TEXT, authorizeQueryOf, isAuthorizeQuery, oauthErrorText, resumeAuthorizeUrl, wantsFreshLogin } from "./oauth.js";

const signed = new URLSearchParams({
  response_type: "code",
  client_id: "abc",
  redirect_uri: "http://127.0.0.1:5555/callback",
  scope: "mcp offline_access",
  state: "xyz",
  resource: "https://mcp.example.com/0123/mcp",
  exp: "1700000000",
  ba_iat: "1700000000000",
  sig: "s1gnature",
});

describe("resuming an authorization request after sign-in", () => {
  it("recognises the authorization server's query", () => {
    expect(isAuthorizeQuery(signed)).toBe(true);
    expect(isAuthorizeQuery(new URLSearchParams("redirect=/servers"))).toBe(false);
    expect(isAuthorizeQuery(new URLSearchParams("client_id=abc"))).toBe(false);
  });

  it("goes back to the authorize endpoint with the same request, unsigned", () => {
    const url = resumeAuthorizeUrl(signed);
    expect(url.startsWith("/api/auth/oauth2/authorize?")).toBe(true);
    const q = new URLSearchParams(url.split("?")[1]);
    expect(q.get("client_id")).toBe("abc");
    expect(q.get("scope")).toBe("mcp offline_access");
    expect(q.get("resource")).toBe("https://mcp.example.com/0123/mcp");
    expect(q.get("redirect_uri")).toBe("http://127.0.0.1:5555/callback");
    for (const p of ["sig", "exp", "ba_iat"]) expect(q.has(p)).toBe(false);
  });

  it("drops prompt=login and create (just satisfied) and keeps other prompts", () => {
    const q = new URLSearchParams(signed);
    q.set("prompt", "login consent");
    expect(wantsFreshLogin(q)).toBe(true);
    const next = new URLSearchParams(resumeAuthorizeUrl(q).split("?")[1]);
    expect(next.get("prompt")).toBe("consent");
    q.set("prompt", "create");
    expect(new URLSearchParams(resumeAuthorizeUrl(q).split("?")[1]).has("prompt")).toBe(false);
    expect(wantsFreshLogin(signed)).toBe(false);
  });

  it("always stays on this site, whatever the query holds", () => {
    const evil = new URLSearchParams({ client_id: "x", response_type: "code", redirect: "https://evil.example/" });
    expect(resumeAuthorizeUrl(evil)).toMatch(/^\/api\/auth\/oauth2\/authorize\?/);
    expect(resumeAuthorizeUrl(evil)).not.toContain("evil.example");
  });

  it("carries the request between /login and /register, without a previous error", () => {
    const q = new URLSearchParams(signed);
    q.set("error", "github");
    const carried = new URLSearchParams(authorizeQueryOf(q));
    expect(carried.has("error")).toBe(false);
    expect(carried.get("sig")).toBe("s1gnature");
    expect(authorizeQueryOf(new URLSearchParams("redirect=/x"))).toBe("");
  });
});

describe("error page texts", () => {
  it("explains known codes and falls back for others", () => {
    expect(oauthErrorText("invalid_redirect")).toBe(OAUTH_TEXT.errorKinds.invalid_redirect);
    expect(oauthErrorText("toString")).toBe(OAUTH_TEXT.errorDefault);
    expect(oauthErrorText(null)).toBe(OAUTH_TEXT.errorDefault);
  });
});
