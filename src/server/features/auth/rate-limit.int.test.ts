import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { client, createTestApp, type TestApp } from "~support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ AUTH_RATE_LIMIT: "on" });
});
afterAll(() => t.close());

describe("rate limits on sign-in, sign-up and reset", () => {
  it("refuses the 11th sign-in for one account within 15 minutes with 429 and Retry-After", async () => {
    const c = client(t.app);
    for (let i = 0; i < 10; i++) {
      const r = await c.post("/api/auth/sign-in/email", { email: "Target@example.com", password: `guess-${i}-xx` });
      expect(r.status).toBe(401);
    }
    const refused = await c.post("/api/auth/sign-in/email", { email: "target@example.com", password: "guess-final" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800);
    expect((await refused.json()).error).toMatch(/^Too many attempts\. Please try again in \d+ seconds\.$/);
    // Another account from the same address is still allowed.
    expect((await c.post("/api/auth/sign-in/email", { email: "other@example.com", password: "whatever1" })).status).toBe(401);
  });

  it("counts sign-ins posted by the login page's form (no JavaScript) like the API's: the 11th is refused with the same text", async () => {
    const form = (password: string) =>
      t.app.request("http://localhost:3000/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:3000" },
        body: new URLSearchParams({ email: "page-target@example.com", password }).toString(),
      });
    for (let i = 0; i < 10; i++) expect(await (await form(`guess-${i}-xx`)).text()).toContain(AUTH_TEXT.invalidCredentials);
    expect(await (await form("guess-final")).text()).toMatch(/Too many attempts\. Please try again in \d+ seconds\./);
    // The API counted them too.
    expect((await client(t.app).post("/api/auth/sign-in/email", { email: "page-target@example.com", password: "x-guess-1" })).status).toBe(
      429,
    );
  });

  it("limits password-reset requests per client address", async () => {
    const c = client(t.app);
    for (let i = 0; i < 10; i++) {
      expect((await c.post("/api/auth/request-password-reset", { email: `r${i}@example.com`, redirectTo: "/reset-password" })).status).toBe(
        200,
      );
    }
    const r = await c.post("/api/auth/request-password-reset", { email: "r99@example.com", redirectTo: "/reset-password" });
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBeTruthy();
  });

  it("limits sign-ups per account address", async () => {
    const c = client(t.app);
    for (let i = 0; i < 5; i++) await c.post("/api/auth/sign-up/email", { email: "spam@example.com", password: "short", name: "s" });
    const r = await c.post("/api/auth/sign-up/email", { email: "spam@example.com", password: "password123", name: "s" });
    expect(r.status).toBe(429);
  });

  it("limits OAuth client registration per client address: a flood of registrations gets 429", async () => {
    const register = () =>
      t.app.request("/api/auth/oauth2/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "flood", redirect_uris: ["http://127.0.0.1:4000/cb"], token_endpoint_auth_method: "none" }),
      });
    for (let i = 0; i < 30; i++) expect((await register()).status).toBe(201);
    const refused = await register();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
  });
});

describe("behind a load balancer (TRUST_PROXY_HOPS=1)", () => {
  let lb: TestApp;
  beforeAll(async () => {
    lb = await createTestApp({ AUTH_RATE_LIMIT: "on", TRUST_PROXY_HOPS: "1" });
  });
  afterAll(() => lb.close());

  it("counts each client by the address the balancer saw, and a forged X-Forwarded-For entry does not escape its bucket", async () => {
    const c = client(lb.app);
    const reset = (xff: string, i: number) =>
      c.post(
        "/api/auth/request-password-reset",
        { email: `lb${i}@example.com`, redirectTo: "/reset-password" },
        { "x-forwarded-for": xff },
      );
    for (let i = 0; i < 10; i++) expect((await reset("203.0.113.5", i)).status).toBe(200);
    expect((await reset("203.0.113.5", 10)).status).toBe(429);
    // Another client behind the same balancer has its own bucket.
    expect((await reset("203.0.113.6", 11)).status).toBe(200);
    // The client wrote an address of its own in front; the balancer appended the real one.
    expect((await reset("198.51.100.77, 203.0.113.5", 12)).status).toBe(429);
  });
});
