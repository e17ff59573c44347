import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { startFakeGitHub, type FakeGitHub } from "~support/github-oauth.js";

let gh: FakeGitHub;
let t: TestApp;
beforeAll(async () => {
  gh = await startFakeGitHub();
  t = await createTestApp({
    GITHUB_CLIENT_ID: gh.clientId,
    GITHUB_CLIENT_SECRET: gh.clientSecret,
    GITHUB_OAUTH_URL: gh.url,
    GITHUB_API_URL: gh.url,
  });
});
afterAll(async () => {
  await t.close();
  await gh.close();
});

const q = (sql: string, params: unknown[] = []) => t.db.database.pool.query(sql, params);

/** Runs the browser's part of the authorization-code flow; returns where the app sent it at the end. */
async function githubSignIn(c: Client): Promise<string> {
  const start = await c.post("/api/auth/sign-in/social", {
    provider: "github",
    callbackURL: "/",
    newUserCallbackURL: "/",
    errorCallbackURL: "/login?error=github",
  });
  expect(start.status).toBe(200);
  const { url } = (await start.json()) as { url: string };
  const approve = await fetch(url, { redirect: "manual" });
  expect(approve.status).toBe(302);
  const back = new URL(approve.headers.get("location")!);
  const done = await c.get(back.pathname + back.search);
  expect(done.status).toBe(302);
  return done.headers.get("location")!;
}

describe("Continue with GitHub", () => {
  it("creates the account the first time, with state and PKCE, and lands on /", async () => {
    gh.user = { id: 42, login: "octo", name: "Octo Cat", email: "octo@example.com", verified: true };
    const c = client(t.app);
    expect(await githubSignIn(c)).toBe("/");
    const auth = gh.authorizeRequests.at(-1)!;
    expect(auth.state).toBeTruthy();
    expect(auth.code_challenge_method).toBe("S256");
    expect(gh.tokenRequests.at(-1)!.code_verifier).toBeTruthy();
    const session = (await (await c.get("/api/auth/get-session")).json()) as { user: { email: string } };
    expect(session.user.email).toBe("octo@example.com");
    const p = await q("select username, full_name from profiles");
    expect(p.rows).toEqual([{ username: "octo", full_name: "Octo Cat" }]);
  });

  it("signs the same account in the second time", async () => {
    const c = client(t.app);
    expect(await githubSignIn(c)).toBe("/");
    expect((await q('select count(*)::int as n from "user"')).rows[0].n).toBe(1);
    expect((await q("select count(*)::int as n from account where provider_id = 'github'")).rows[0].n).toBe(1);
  });

  it("never links an unverified GitHub e-mail to an existing account", async () => {
    const owner = await signedInUser(t, "victim@example.com");
    gh.user = { id: 666, login: "attacker", name: "Mallory", email: "victim@example.com", verified: false };
    const c = client(t.app);
    const landed = await githubSignIn(c);
    expect(landed).toMatch(/^\/login\?error=/);
    expect(await (await c.get("/api/auth/get-session")).json()).toBeNull();
    const linked = await q("select count(*)::int as n from account where user_id = $1 and provider_id = 'github'", [owner.id]);
    expect(linked.rows[0].n).toBe(0);
  });

  it("refuses a callback whose state does not match", async () => {
    const c = client(t.app);
    const r = await c.get("/api/auth/callback/github?code=abc&state=forged");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toMatch(/error/);
    expect(await (await c.get("/api/auth/get-session")).json()).toBeNull();
  });
});

describe("GitHub not configured", () => {
  it("shows the button with a note instead of failing", async () => {
    const plain = await createTestApp();
    try {
      const html = await (await plain.app.request("/login")).text();
      expect(html).toContain("Continue with GitHub");
      expect(html).toContain("GitHub sign-in is not configured on this server");
    } finally {
      await plain.close();
    }
  });
});
