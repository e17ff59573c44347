// The pages' forms post to their route actions (they work without JavaScript). What those posts
// must never do: act for another site (CSRF), lead off-site after signing in, echo a password,
// buffer an endless body, or let a form do what the API would refuse.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { ORIGIN, createTestApp, linkIn, outbox, signedInUser, type TestApp } from "../support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ GITHUB_CLIENT_ID: "gh-id", GITHUB_CLIENT_SECRET: "gh-secret", GITHUB_OAUTH_URL: "https://github.example" });
  await signedInUser(t, "form-owner@example.com");
});
afterAll(() => t.close());

/** A form post as a browser without JavaScript sends it. */
function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

describe("page forms (route actions)", () => {
  it("refuse a post from another site, or from an opaque origin, before any action runs", async () => {
    for (const origin of ["https://evil.example", "null", "http://localhost:3000.evil.example"]) {
      const r = await post("/login", { email: "form-owner@example.com", password: "password123" }, { origin });
      expect(r.status).toBe(403);
      expect(r.headers.getSetCookie()).toEqual([]);
    }
    // The same post from the site itself signs in.
    const ok = await post("/login", { email: "form-owner@example.com", password: "password123" });
    expect(ok.status).toBe(302);
    expect(ok.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token="))).toBe(true);
  });

  it("after signing in, go only to a path of this site", async () => {
    const where = async (redirect: string) =>
      (
        await post(`/login?redirect=${encodeURIComponent(redirect)}`, { email: "form-owner@example.com", password: "password123" })
      ).headers.get("location");
    expect(await where("/servers/apikeys")).toBe("/servers/apikeys");
    for (const evil of ["//evil.example/x", "https://evil.example/x", "/\\evil.example", "javascript:alert(1)", "/%2F%2Fevil.example"]) {
      const to = (await where(evil)) ?? "";
      expect(to.startsWith("/") && !to.startsWith("//")).toBe(true);
      expect(new URL(to, ORIGIN).origin).toBe(ORIGIN);
    }
  });

  it("sign-up and the confirmation e-mail carry the way back to the page the visitor came from, and only to this site", async () => {
    const signUp = async (email: string, redirect: string) => {
      const r = await post(`/register?redirect=${encodeURIComponent(redirect)}`, { email, password: "long-enough-1" });
      expect(r.status).toBeLessThan(400);
      const mail = (await outbox(t.app)).find((m) => m.to === email);
      return new URL(linkIn(mail));
    };
    const link = await signUp("going@example.com", "/server/everything");
    expect(link.pathname).toBe("/verify-email");
    expect(link.searchParams.get("redirect")).toBe("/server/everything");
    // The confirmation page's way on is the login page that comes back there; logging in lands there.
    const page = await (await t.app.request(`${ORIGIN}${link.pathname}${link.search}`)).text();
    expect(page).toContain('href="/login?redirect=%2Fserver%2Feverything"');
    const signedIn = await post("/login?redirect=%2Fserver%2Feverything", { email: "going@example.com", password: "long-enough-1" });
    expect(signedIn.headers.get("location")).toBe("/server/everything");
    // The register page's own links keep it too.
    expect(await (await t.app.request(`${ORIGIN}/login?redirect=%2Fserver%2Feverything`)).text()).toContain(
      'href="/register?redirect=%2Fserver%2Feverything"',
    );

    // Anywhere else is dropped, in the e-mail and on the page: the link is the plain one.
    for (const [i, evil] of ["//evil.example/x", "https://evil.example/x", "/\\evil.example", "javascript:alert(1)"].entries()) {
      const l = await signUp(`evil-${i}@example.com`, evil);
      expect(l.origin).toBe(ORIGIN);
      expect(l.searchParams.get("redirect")).toBeNull();
      const confirmed = await (
        await t.app.request(`${ORIGIN}/verify-email?token=${l.searchParams.get("token")}&redirect=${encodeURIComponent(evil)}`)
      ).text();
      expect(confirmed).toContain('href="/login"');
      expect(confirmed).not.toContain("evil.example");
    }
    // An unconfirmed account signing in gets a fresh link that carries the way back too.
    await signUp("unconfirmed@example.com", "/");
    const again = await post("/login?redirect=%2Fsubscription", { email: "unconfirmed@example.com", password: "long-enough-1" });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain(AUTH_TEXT.emailNotConfirmed);
    const fresh = (await outbox(t.app)).filter((m) => m.to === "unconfirmed@example.com");
    expect(fresh).toHaveLength(2);
    expect(new URL(linkIn(fresh[0])).searchParams.get("redirect")).toBe("/subscription");
  });

  it("never send a password back in the page they answer with", async () => {
    const password = "pw-never-echoed-1";
    for (const [path, fields] of [
      ["/register", { email: "echo@example.com", password: "short-1" }],
      ["/login", { email: "nobody@example.com", password }],
      ["/reset-password?token=bad", { password, confirm: `${password}x` }],
    ] as const) {
      const r = await post(path, fields);
      const html = await r.text();
      expect(r.status).toBeLessThan(500);
      expect(html).not.toContain(fields.password);
    }
  });

  it("answer with the spec's messages at the form and at the field", async () => {
    const login = await (await post("/login", { email: "form-owner@example.com" })).text();
    expect(login).toContain(AUTH_TEXT.bothRequired);
    const wrong = await (await post("/login", { email: "form-owner@example.com", password: "not-the-password" })).text();
    expect(wrong).toContain(AUTH_TEXT.invalidCredentials);
    const short = await (await post("/register", { email: "short@example.com", password: "short" })).text();
    expect(short).toMatch(new RegExp(`id="register-password-error"[^>]*>${AUTH_TEXT.passwordTooShort}<`));
    expect(short).toMatch(/aria-invalid="true"[^>]*name="password"|name="password"[^>]*aria-invalid="true"/);
  });

  it("refuse what the API refuses: signed out, a key form sends to log in; another user's key cannot be revoked", async () => {
    const out = await post("/servers/apikeys", { name: "x" });
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toBe("/login?redirect=/servers/apikeys");

    const alice = await signedInUser(t, "form-alice@example.com");
    const bob = await signedInUser(t, "form-bob@example.com");
    expect((await alice.post("/api/auth/apikeys", { name: "alice key" })).status).toBe(201);
    const byBob = await t.app.request(`${ORIGIN}/servers/apikeys`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, cookie: bob.jar.header() },
      body: new URLSearchParams({ intent: "revoke", name: "alice key" }).toString(),
    });
    expect(await byBob.text()).toContain(API_KEY_TEXT.revokeFailed);
    const keys = (await (await alice.get("/api/auth/me")).json()) as { user: { apiKeys: { name: string }[] } };
    expect(keys.user.apiKeys.map((k) => k.name)).toEqual(["alice key"]);
  });

  it("cut off a body over 1 MB instead of buffering it", async () => {
    const r = await post("/login", { email: "x@example.com", password: "y".repeat(1_100_000) });
    expect(r.status).toBe(413);
  });

  it("allow a form to lead only to this site, and to GitHub when it is configured (form-action)", async () => {
    const csp = (await t.app.request(`${ORIGIN}/login`)).headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/form-action 'self' https:\/\/github\.example(;|$)/);
    const other = await createTestApp();
    try {
      const plain = (await other.app.request(`${ORIGIN}/login`)).headers.get("content-security-policy") ?? "";
      expect(plain).toMatch(/form-action 'self'(;|$)/);
    } finally {
      await other.close();
    }
  });
});
