import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createTestApp, linkIn, outbox, signedInUser, type TestApp } from "~support/app.js";
import { AUTH_TEXT } from "~/shared/auth.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ ADMIN_EMAILS: "boss@example.com" });
});
afterAll(() => t.close());

const q = (sql: string, params: unknown[] = []) => t.db.database.pool.query(sql, params);

describe("register and confirm", () => {
  it("creates an unconfirmed account, mails a confirmation link that works once", async () => {
    const c = client(t.app);
    const r = await c.post("/api/auth/sign-up/email", { email: "Ada@Example.com", password: "password123", name: "ada" });
    expect(r.status).toBe(200);
    const mail = (await outbox(t.app))[0]!;
    expect(mail.to).toBe("ada@example.com");
    expect(mail.subject).toBe("Confirm your Switchboard account");
    expect(mail.html).toContain("Confirm e-mail");

    // Unconfirmed: login refused with the confirmation code the page turns into AUTH_TEXT.emailNotConfirmed.
    const early = await c.post("/api/auth/sign-in/email", { email: "ada@example.com", password: "password123" });
    expect(early.status).toBe(403);
    expect((await early.json()).code).toBe("EMAIL_NOT_VERIFIED");

    const link = new URL(linkIn(mail));
    expect(link.pathname).toBe("/verify-email");
    const first = await (await c.get(link.pathname + link.search)).text();
    expect(first).toContain('data-outcome="confirmed"');
    const second = await (await c.get(link.pathname + link.search)).text();
    expect(second).toContain('data-outcome="used"');

    const ok = await c.post("/api/auth/sign-in/email", { email: "ada@example.com", password: "password123" });
    expect(ok.status).toBe(200);
    const profile = await q("select username, full_name, is_admin, email from profiles");
    expect(profile.rows).toEqual([{ username: "ada", full_name: "ada", is_admin: false, email: "ada@example.com" }]);
  });

  it("refuses an expired or forged confirmation link with a clear page", async () => {
    const c = client(t.app);
    const expired = await new SignJWT({ email: "ada@example.com" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 90_000)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3_600)
      .sign(new TextEncoder().encode(t.secret));
    expect(await (await c.get(`/verify-email?token=${expired}`)).text()).toContain('data-outcome="expired"');
    expect(await (await c.get("/verify-email?token=not-a-token")).text()).toContain('data-outcome="invalid"');
    expect(await (await c.get("/verify-email")).text()).toContain('data-outcome="invalid"');
  });

  it("tells a person whose address is registered to log in instead", async () => {
    const r = await client(t.app).post("/api/auth/sign-up/email", { email: "ADA@example.com", password: "password123", name: "x" });
    expect(r.status).toBe(422);
    expect(await r.json()).toMatchObject({ code: "USER_ALREADY_EXISTS", message: AUTH_TEXT.alreadyRegistered });
  });

  it.each([
    ["short", "seven77", "PASSWORD_TOO_SHORT"],
    ["long", "x".repeat(129), "PASSWORD_TOO_LONG"],
  ])("refuses a too %s password", async (_n, password, code) => {
    const r = await client(t.app).post("/api/auth/sign-up/email", { email: `pw-${password.length}@example.com`, password, name: "x" });
    expect(r.status).toBe(400);
    expect((await r.json()).code).toBe(code);
  });

  it("accepts a 128-character password and stores only a scrypt hash", async () => {
    const password = "p".repeat(128);
    const r = await client(t.app).post("/api/auth/sign-up/email", { email: "long@example.com", password, name: "long" });
    expect(r.status).toBe(200);
    const row = await q("select a.password from account a join \"user\" u on u.id = a.user_id where u.email = 'long@example.com'");
    expect(row.rows[0].password).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(row.rows[0].password).not.toContain(password);
  });

  it("makes the username unique when the e-mail prefix is taken", async () => {
    await signedInUser(t, "ada@other.org");
    const r = await q("select username from profiles where email = 'ada@other.org'");
    expect(r.rows[0].username).toBe("ada-2");
  });
});

describe("log in and out", () => {
  it("answers wrong credentials with the invalid-credentials code", async () => {
    const r = await client(t.app).post("/api/auth/sign-in/email", { email: "ada@example.com", password: "wrong-password" });
    expect(r.status).toBe(401);
    expect((await r.json()).code).toBe("INVALID_EMAIL_OR_PASSWORD");
  });

  it("sets an HttpOnly, SameSite=Lax session cookie with a new id on every login, and sign-out ends it", async () => {
    const c = client(t.app);
    const a = await c.post("/api/auth/sign-in/email", { email: "ada@example.com", password: "password123" });
    const cookie = a.headers.getSetCookie().find((s) => s.startsWith("better-auth.session_token="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
    const first = c.jar.get("better-auth.session_token");
    await c.post("/api/auth/sign-in/email", { email: "ada@example.com", password: "password123" });
    expect(c.jar.get("better-auth.session_token")).not.toBe(first);

    expect(await (await c.get("/")).text()).toContain("Add Server");
    await c.post("/api/auth/sign-out", {});
    expect(await (await c.get("/api/auth/get-session")).json()).toBeNull();
    expect(await (await c.get("/")).text()).not.toContain("Add Server");
  });

  it("refuses a sign-in posted from a foreign origin", async () => {
    const r = await client(t.app, "https://evil.example").post("/api/auth/sign-in/email", {
      email: "ada@example.com",
      password: "password123",
    });
    expect(r.status).toBe(403);
  });

  it.each([
    ["/api/auth/sign-in/email", { email: "ada@example.com", password: "password123", callbackURL: "https://evil.example/" }],
    ["/api/auth/request-password-reset", { email: "ada@example.com", redirectTo: "//evil.example/x" }],
    ["/api/auth/sign-up/email", { email: "new1@example.com", password: "password123", name: "n", callbackURL: "javascript:alert(1)" }],
  ])("refuses a redirect target on another site at %s (no open redirect)", async (url, body) => {
    const r = await client(t.app).post(url, body);
    expect(r.status).toBe(403);
  });

  it("refuses an open redirect through the confirmation link too", async () => {
    const r = await client(t.app).get("/api/auth/verify-email?token=x&callbackURL=https%3A%2F%2Fevil.example");
    expect(r.status).toBe(403);
  });
});

describe("password reset", () => {
  it("answers the same for known and unknown addresses and only mails the known one", async () => {
    const before = (await outbox(t.app)).length;
    const known = await client(t.app).post("/api/auth/request-password-reset", { email: "ada@example.com", redirectTo: "/reset-password" });
    const unknown = await client(t.app).post("/api/auth/request-password-reset", {
      email: "nobody@example.com",
      redirectTo: "/reset-password",
    });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(await known.json()).toEqual(await unknown.json());
    const mails = await outbox(t.app);
    expect(mails.length).toBe(before + 1);
    expect(mails[0]!.to).toBe("ada@example.com");
  });

  it("sets a new password once with the link and ends the other sessions", async () => {
    const other = client(t.app);
    await other.post("/api/auth/sign-in/email", { email: "ada@example.com", password: "password123" });
    expect(await (await other.get("/api/auth/get-session")).json()).not.toBeNull();

    await client(t.app).post("/api/auth/request-password-reset", { email: "ada@example.com", redirectTo: "/reset-password" });
    const link = new URL(linkIn((await outbox(t.app))[0]));
    expect(link.pathname).toBe("/reset-password");
    const token = link.searchParams.get("token")!;
    const c = client(t.app);
    expect((await c.post("/api/auth/reset-password", { newPassword: "brand-new-pass", token })).status).toBe(200);
    const again = await c.post("/api/auth/reset-password", { newPassword: "another-pass-1", token });
    expect(again.status).toBe(400);
    expect((await again.json()).code).toBe("INVALID_TOKEN");

    expect(await (await other.get("/api/auth/get-session")).json()).toBeNull();
    expect((await c.post("/api/auth/sign-in/email", { email: "ada@example.com", password: "password123" })).status).toBe(401);
    expect((await c.post("/api/auth/sign-in/email", { email: "ada@example.com", password: "brand-new-pass" })).status).toBe(200);
  });
});

describe("admins", () => {
  it("makes an account listed in ADMIN_EMAILS an admin", async () => {
    await signedInUser(t, "boss@example.com");
    const r = await q("select is_admin from profiles where email = 'boss@example.com'");
    expect(r.rows[0].is_admin).toBe(true);
  });
});
