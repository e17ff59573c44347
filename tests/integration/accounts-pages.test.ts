import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { client, createTestApp, outbox, signedInUser, type TestApp } from "../support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const html = async (path: string) => (await t.app.request(path)).text();

describe("account pages are server-rendered", () => {
  it("/login has its title, GitHub button and links", async () => {
    const h = await html("/login");
    expect(h).toContain("Log in to Switchboard");
    expect(h).toContain(AUTH_TEXT.continueWithGitHub);
    expect(h).toMatch(/href="\/forgot-password"[^>]*>Forgot password\?</);
    expect(h).toMatch(/href="\/register"[^>]*>Sign up</);
  });

  it("/register has its title and the password hint", async () => {
    const h = await html("/register");
    expect(h).toContain("Join Switchboard");
    expect(h).toContain(AUTH_TEXT.passwordHint);
  });

  it("uses SITE_NAME in the titles", async () => {
    const other = await createTestApp({ SITE_NAME: "Relay" });
    try {
      expect(await (await other.app.request("/login")).text()).toContain("Log in to Relay");
      expect(await (await other.app.request("/register")).text()).toContain("Join Relay");
    } finally {
      await other.close();
    }
  });

  it("sends a signed-in visitor away from /login", async () => {
    const c = await signedInUser(t, "dave@example.com");
    const r = await c.get("/login");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/");
  });
});

describe("development outbox", () => {
  it("lists sent mail newest first as JSON and HTML", async () => {
    await client(t.app).post("/api/auth/request-password-reset", { email: "dave@example.com", redirectTo: "/reset-password" });
    const mails = await outbox(t.app);
    expect(mails.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(mails[0]!).sort()).toEqual(["html", "sentAt", "subject", "text", "to"]);
    expect(mails[0]!.subject).toBe("Reset your Switchboard password");
    expect(mails[1]!.subject).toBe("Confirm your Switchboard account");
    expect(Date.parse(mails[0]!.sentAt)).toBeGreaterThanOrEqual(Date.parse(mails[1]!.sentAt));
    const page = await html("/dev/outbox");
    expect(page).toContain("Development outbox");
    expect(page).toContain("Reset your Switchboard password");
  });

  it("does not exist in production", async () => {
    const prod = await createTestApp({ NODE_ENV: "production" });
    try {
      expect((await prod.app.request("/dev/outbox.json")).status).toBe(404);
      expect((await prod.app.request("/dev/outbox")).status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});

describe("session cookie behind https", () => {
  it("is Secure when PUBLIC_URL is https", async () => {
    const secure = await createTestApp({ PUBLIC_URL: "https://mcp.example.com" });
    try {
      const c = client(secure.app, "https://mcp.example.com");
      await c.post("/api/auth/sign-up/email", { email: "sec@example.com", password: "password123", name: "sec" });
      const link = new URL((await outbox(secure.app))[0]!.text.match(/https?:\/\/\S+/)![0]);
      await c.get(link.pathname + link.search);
      const r = await c.post("/api/auth/sign-in/email", { email: "sec@example.com", password: "password123" });
      expect(r.status).toBe(200);
      const cookie = r.headers.getSetCookie().find((s) => s.includes("session_token="))!;
      expect(cookie).toMatch(/^__Secure-/);
      expect(cookie).toMatch(/; Secure/i);
      expect(cookie).toMatch(/HttpOnly/i);
    } finally {
      await secure.close();
    }
  });
});
