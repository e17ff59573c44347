// PostgreSQL cannot store a NUL character in text: one sent in a path, a query or a body used to
// fail deep inside a query as a 500. Every way in now gets a clear 400 and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NUL_TEXT } from "~/server/http/middleware.js";
import { createTestApp, ORIGIN, signedInUser, type Client, type TestApp } from "../support/app.js";

let t: TestApp;
let user: Client & { id: string };

beforeAll(async () => {
  t = await createTestApp();
  user = await signedInUser(t, "nul@example.com");
});
afterAll(() => t?.close());

describe("a NUL character from a user", () => {
  it.each([
    "/server/%00",
    "/api/mcp-servers/%00",
    "/api/servers/a%00/x",
    "/v0.1/servers?search=%00",
    "/oauth/consent?client_id=%00&response_type=code",
  ])("in %s gets 400, not 500", async (path) => {
    const r = await user.get(path);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: NUL_TEXT, code: "validation_failed" });
  });

  it("in a JSON body gets 400 and nothing is stored (our API and better-auth's)", async () => {
    const key = await user.post("/api/auth/apikeys", { name: "a\u0000b" });
    expect(key.status).toBe(400);
    expect(await key.json()).toEqual({ error: NUL_TEXT, code: "validation_failed" });
    expect(await (await user.get("/api/auth/apikeys")).text()).not.toContain("a\\u0000b");
    const register = await t.app.request("/api/auth/oauth2/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "a\u0000", redirect_uris: ["http://127.0.0.1:1/cb"], token_endpoint_auth_method: "none" }),
    });
    expect(register.status).toBe(400);
    const signUp = await t.app.request("/api/auth/sign-up/email", {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ email: "n2@example.com", password: "password123", name: "a\u0000" }),
    });
    expect(signUp.status).toBe(400);
  });

  it("in a form body gets 400; a backslash-u0000 that is text, not a NUL, is accepted", async () => {
    const form = await t.app.request("/api/auth/oauth2/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=authorization_code&code=%00",
    });
    expect(form.status).toBe(400);
    const literal = await user.post("/api/auth/apikeys", { name: "backslash \\u0000 text" });
    expect(literal.status).not.toBe(400);
  });
});
