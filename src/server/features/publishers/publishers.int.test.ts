import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORIGIN, createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { API_KEY_TEXT, SERVER_FORM_TEXT } from "~/shared/publishers.js";

let t: TestApp;
let alice: Client & { id: string };
let bob: Client & { id: string };
let admin: Client & { id: string };
beforeAll(async () => {
  t = await createTestApp({ ADMIN_EMAILS: "boss@example.com" });
  alice = await signedInUser(t, "alice@example.com");
  bob = await signedInUser(t, "bob@example.com");
  admin = await signedInUser(t, "boss@example.com");
});
afterAll(() => t.close());

/** A request carrying only an API key: no cookie, no Origin (like curl or an MCP client). */
const withKey = (key: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  t.app.request(`${ORIGIN}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

const weather = {
  qualifiedName: "alice/weather",
  displayName: "Weather",
  description: "Forecasts for any city",
  homepage: "https://weather.example.com",
  repositoryUrl: "https://github.com/alice/weather-mcp",
  keywords: "weather, forecast, , weather ",
  documentation: "# Weather\nAsk for *forecasts*.",
  connections: [
    {
      type: "http",
      url: "https://weather.example.com/mcp",
      configSchema: {
        type: "object",
        required: ["apiKey", "units"],
        properties: { apiKey: { title: "Weather API key", description: "From weather.example.com" }, units: { type: "string" } },
      },
    },
  ],
};

describe("API keys", () => {
  let key = "";

  it("creates a key shown once, lists only its name, prefix and dates", async () => {
    const r = await alice.post("/api/auth/apikeys", { name: "laptop", scopes: ["mcp", "deploy", "servers"] });
    expect(r.status).toBe(201);
    const body = await r.json();
    key = body.apiKey;
    expect(key).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
    expect(body.key).toMatchObject({ name: "laptop", prefix: key.slice(0, 11), lastUsedAt: null });

    const me = await (await alice.get("/api/auth/me")).json();
    expect(me.user).toMatchObject({ id: alice.id, username: "alice", email: "alice@example.com" });
    expect(me.user.apiKeys).toEqual([
      {
        name: "laptop",
        prefix: key.slice(0, 11),
        createdAt: expect.any(String),
        lastUsedAt: null,
        scopes: ["mcp", "deploy", "servers"],
        resources: null,
        expiresAt: null,
        legacy: false,
      },
    ]);
    expect(JSON.stringify(me)).not.toContain(key);
  });

  it("keeps no plaintext key in the database, only its SHA-256", async () => {
    const { rows } = await t.db.database.pool.query("select * from api_keys");
    expect(JSON.stringify(rows)).not.toContain(key);
    const { createHash } = await import("node:crypto");
    expect(rows.map((r: { key_hash: string }) => r.key_hash)).toContain(createHash("sha256").update(key).digest("hex"));
  });

  it("refuses a missing name and a duplicate name", async () => {
    for (const body of [{}, { name: "  " }]) {
      const r = await alice.post("/api/auth/apikeys", body);
      expect(r.status).toBe(400);
      expect((await r.json()).error).toBe(API_KEY_TEXT.nameRequired);
    }
    const dup = await alice.post("/api/auth/apikeys", { name: "laptop" });
    expect(dup.status).toBe(409);
    expect((await dup.json()).error).toBe(API_KEY_TEXT.duplicate);
    // Names are per user: bob may have a 'laptop' too.
    expect((await bob.post("/api/auth/apikeys", { name: "laptop" })).status).toBe(201);
  });

  it("acts as its owner on the routes of its scopes, without cookie or Origin, and records its use", async () => {
    expect((await withKey(key, "/api/servers")).status).toBe(200);
    // Its own list is the account's: a sign-in only.
    expect((await withKey(key, "/api/auth/me")).status).toBe(403);
    expect((await (await alice.get("/api/auth/me")).json()).user.apiKeys[0].lastUsedAt).not.toBeNull();
    const submit = await withKey(key, "/api/mcp-servers", {
      method: "POST",
      body: { name: "Via Key", description: "d", tags: ["x"], category: "Featured", type: "Community", source: "user_submitted" },
    });
    expect(submit.status).toBe(201);
    expect((await submit.json()).submitted_by).toBe(alice.id);
  });

  it("never carries admin powers, not even an admin's key: admin actions need a sign-in", async () => {
    expect((await withKey(key, "/api/admin/mcp-servers?status=pending")).status).toBe(403);
    const adminKey = (await (await admin.post("/api/auth/apikeys", { name: "ops", scopes: ["mcp", "deploy", "servers"] })).json()).apiKey;
    const r = await withKey(adminKey, "/api/admin/mcp-servers?status=pending");
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe(API_KEY_TEXT.needsSignIn);
    expect((await admin.get("/api/admin/mcp-servers?status=pending")).status).toBe(200);
  });

  it("refuses malformed and unknown keys with 401 and WWW-Authenticate", async () => {
    for (const bad of ["", "nope", `sb_${"A".repeat(43)}`, key + "x"]) {
      const r = await t.app.request(`${ORIGIN}/api/servers`, { headers: { authorization: `Bearer ${bad}` } });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect((await r.json()).error).toBe(API_KEY_TEXT.invalid);
    }
  });

  it("refuses a key in the query string", async () => {
    for (const q of [`api_key=${key}`, `key=${key}`, `access_token=${key}`, `q=${key}`]) {
      const r = await t.app.request(`${ORIGIN}/api/servers?${q}`);
      expect(r.status).toBe(401);
      expect((await r.json()).error).toBe(API_KEY_TEXT.inQuery);
    }
  });

  it("lets only its owner revoke it, and a revoked key fails on the very next request", async () => {
    expect((await bob.del("/api/auth/apikeys/ops")).status).toBe(404);
    expect((await withKey(key, "/api/servers")).status).toBe(200);
    const r = await alice.del("/api/auth/apikeys/laptop");
    expect(r.status).toBe(200);
    expect((await r.json()).message).toBe(API_KEY_TEXT.revoked("laptop"));
    expect((await withKey(key, "/api/servers")).status).toBe(401);
    expect((await alice.del("/api/auth/apikeys/laptop")).status).toBe(404);
    expect((await (await bob.get("/api/auth/me")).json()).user.apiKeys.map((k: { name: string }) => k.name)).toEqual(["laptop"]);
  });

  it("needs a signed-in user", async () => {
    expect((await t.app.request(`${ORIGIN}/api/auth/me`)).status).toBe(401);
    expect(
      (
        await t.app.request(`${ORIGIN}/api/auth/apikeys`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: ORIGIN },
          body: '{"name":"x"}',
        })
      ).status,
    ).toBe(401);
  });
});

describe("owned servers", () => {
  it("registers a server with defaults, split keywords and keys from the config schema", async () => {
    const r = await alice.post("/api/servers", weather);
    expect(r.status).toBe(201);
    const s = await r.json();
    expect(s).toMatchObject({
      qualifiedName: "alice/weather",
      version: "1.0.0",
      keywords: ["weather", "forecast"],
      owner: { id: alice.id, username: "alice" },
      useCount: 0,
      required_keys: [
        { key: "Weather API key", env_var: "API_KEY", description: "From weather.example.com" },
        { key: "units", env_var: "UNITS", description: "" },
      ],
    });
    const list = await (await alice.get("/api/servers")).json();
    expect(list.data.map((x: { qualifiedName: string }) => x.qualifiedName)).toEqual(["alice/weather"]);
    expect((await (await bob.get("/api/servers")).json()).data).toEqual([]);
  });

  it.each([
    [{ ...weather, qualifiedName: "" }, SERVER_FORM_TEXT.required],
    [{ ...weather, displayName: " " }, SERVER_FORM_TEXT.required],
    [{ ...weather, description: undefined }, SERVER_FORM_TEXT.required],
    [{ ...weather, qualifiedName: "weather" }, SERVER_FORM_TEXT.qualifiedNameFormat],
    [{ ...weather, qualifiedName: "alice/we ather" }, SERVER_FORM_TEXT.qualifiedNameFormat],
    [{ ...weather, qualifiedName: "alice/a/b" }, SERVER_FORM_TEXT.qualifiedNameFormat],
    [{ ...weather, qualifiedName: "bob/weather2" }, SERVER_FORM_TEXT.notYourName("alice")],
    [{ ...weather, connections: [] }, SERVER_FORM_TEXT.atLeastOneConnection],
    [{ ...weather, connections: [{ type: "ws", url: "" }] }, SERVER_FORM_TEXT.connectionRequired],
    [{ ...weather, connections: [{ type: "", url: "wss://x.example.com" }] }, SERVER_FORM_TEXT.connectionRequired],
    [{ ...weather, connections: [{ type: "ws", url: "javascript:alert(1)" }] }, SERVER_FORM_TEXT.connectionUrl],
    [
      { ...weather, connections: [{ type: "ws", url: "wss://x.example.com", configSchema: "{not json" }] },
      SERVER_FORM_TEXT.configSchemaJson,
    ],
    [{ ...weather, homepage: "javascript:alert(1)" }, "Homepage must be a valid http(s) URL"],
    [{ ...weather, version: "one" }, SERVER_FORM_TEXT.version],
  ])("refuses %j with a clear 400 and stores nothing", async (body, message) => {
    const r = await alice.post("/api/servers", {
      ...body,
      qualifiedName: body.qualifiedName === weather.qualifiedName ? "alice/other" : body.qualifiedName,
    });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toBe(message);
    expect((await t.db.database.pool.query("select count(*)::int as n from servers")).rows[0].n).toBe(1);
  });

  it("refuses a taken qualified name with 409, in any letter case", async () => {
    for (const qualifiedName of ["alice/weather", "alice/WEATHER"]) {
      const r = await alice.post("/api/servers", { ...weather, qualifiedName });
      expect(r.status).toBe(409);
      expect((await r.json()).error).toBe(SERVER_FORM_TEXT.duplicate);
    }
  });

  it("lets the owner read and save, keeping the qualified name", async () => {
    expect((await alice.get("/api/servers/alice/weather")).status).toBe(200);
    const r = await alice.put("/api/servers/alice/weather", {
      ...weather,
      displayName: "Weather Pro",
      version: "1.1.0",
      connections: [{ type: "ws", url: "wss://weather.example.com/ws" }],
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      displayName: "Weather Pro",
      version: "1.1.0",
      required_keys: [],
      connections: [{ type: "ws", url: "wss://weather.example.com/ws", configSchema: {} }],
    });
    const rename = await alice.put("/api/servers/alice/weather", { ...weather, qualifiedName: "alice/renamed" });
    expect(rename.status).toBe(400);
  });

  it("keeps everyone else out of every owned-server and key route", async () => {
    expect((await bob.get("/api/servers/alice/weather")).status).toBe(403);
    const put = await bob.put("/api/servers/alice/weather", { ...weather, displayName: "Hijacked" });
    expect(put.status).toBe(403);
    expect((await put.json()).error).toBe(SERVER_FORM_TEXT.notOwner);
    expect((await bob.get("/api/servers/alice/nothing")).status).toBe(404);
    const bobKey = (await (await bob.post("/api/auth/apikeys", { name: "ci", scopes: ["servers"] })).json()).apiKey;
    expect((await withKey(bobKey, "/api/servers/alice/weather", { method: "PUT", body: weather })).status).toBe(403);
    // A key revokes no key, not even its owner's own 'laptop': that needs a sign-in.
    expect((await withKey(bobKey, "/api/auth/apikeys/laptop", { method: "DELETE" })).status).toBe(403);
    const { rows } = await t.db.database.pool.query("select display_name from servers where qualified_name = 'alice/weather'");
    expect(rows[0].display_name).toBe("Weather Pro");
    expect((await t.app.request(`${ORIGIN}/api/servers`)).status).toBe(401);
  });

  it("shows the owned server's page to everyone, with Edit only for the owner", async () => {
    const anon = await (await t.app.request(`${ORIGIN}/server/alice/weather`)).text();
    expect(anon).toContain("Weather Pro");
    expect(anon).toContain("Owner Information");
    expect(anon).toContain("Server Statistics");
    expect(anon).toContain("Total Usage (requests)");
    expect(anon).not.toContain('href="/servers/server/alice/weather/edit"');
    const own = await (await alice.get("/server/alice/weather")).text();
    expect(own).toContain('href="/servers/server/alice/weather/edit"');
    expect((await t.app.request(`${ORIGIN}/server/alice/missing`)).status).toBe(404);
    // The owner finds their servers on their profile; others do not see them there.
    expect(await (await alice.get("/profile")).text()).toContain('href="/servers/server/alice/weather/edit"');
    expect(await (await bob.get("/profile")).text()).toContain("You haven&#x27;t registered any servers yet.");
  });

  it("guards the form pages", async () => {
    const signedOut = await t.app.request(`${ORIGIN}/servers/server/new`, { redirect: "manual" });
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toBe("/login?redirect=/servers/server/new");
    expect(await (await alice.get("/servers/server/new")).text()).toContain(SERVER_FORM_TEXT.newTitle);
    expect(await (await alice.get("/servers/server/alice/weather/edit")).text()).toContain(SERVER_FORM_TEXT.editTitle);
    const other = await bob.get("/servers/server/alice/weather/edit");
    expect(other.status).toBe(403);
    expect(await other.text()).toContain(SERVER_FORM_TEXT.notOwner);
    const keys = await t.app.request(`${ORIGIN}/servers/apikeys`, { redirect: "manual" });
    expect(keys.status).toBe(302);
    expect(keys.headers.get("location")).toBe("/login?redirect=/servers/apikeys");
  });
});
