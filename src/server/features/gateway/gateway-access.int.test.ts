import { describe, expect, it } from "vitest";
import { client, signedInUser, type Client, type TestApp } from "~support/app.js";
import { MCP_ACCEPT, newApiKey, raw, rawSession, sseRequest } from "~support/gateway.js";
import type { DeploymentView } from "~/shared/deployments.js";
import { GATEWAY_TEXT } from "./gateway.js";
import { useGatewayApp, usageOf } from "./gateway-test-setup.js";

// Who may connect to a deployment through the gateway, over real HTTP (gateway-test-setup.ts):
// keys, the playground's cookie, Origin and Host, sessions and their expiry.

let t: TestApp;
let base: string;
let owner: Client & { id: string };
let key: string;
let deployment: DeploymentView;
let url: string;
useGatewayApp((f) => ({ t, base, owner, key, deployment, url } = f));

const usage = (qn: string) => usageOf(t, qn);

describe("who may connect", () => {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  };
  const post = (headers: Record<string, string>, target = url, body: unknown = init) =>
    raw(target, { headers: { accept: MCP_ACCEPT, ...headers }, body });

  it("401 with a WWW-Authenticate challenge without a key, with a malformed key, or a key in the URL", async () => {
    for (const headers of [
      {},
      { authorization: "Bearer nope" },
      { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
      { authorization: `Bearer sb_${"x".repeat(43)}` },
    ] as Record<string, string>[]) {
      const r = await post(headers);
      expect(r.status).toBe(401);
      expect(r.headers["www-authenticate"]).toMatch(/^Bearer realm="mcp"/);
    }
    const q = await post({}, `${url}?api_key=${key}`);
    expect(q.status).toBe(401);
    expect(q.json()).toMatchObject({ error: { message: GATEWAY_TEXT.keyInQuery } });
  });

  it("a revoked key is refused on the very next request, even inside a session", async () => {
    const temp = await newApiKey(owner, "temporary");
    const s = await rawSession(url, temp);
    expect((await s.call(2, "tools/list")).status).toBe(200);
    expect((await owner.del("/api/auth/apikeys/temporary")).status).toBe(200);
    const r = await s.call(3, "tools/list");
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  it("another user's key gets 404, the same as a deployment that does not exist, also for a live session id", async () => {
    const mallory = await signedInUser(t, "mallory@example.com");
    const theirs = await newApiKey(mallory, "mine");
    const r = await post({ authorization: `Bearer ${theirs}` });
    expect(r.status).toBe(404);
    const unknown = await post({ authorization: `Bearer ${key}` }, `${base}/${"0".repeat(32)}/mcp`);
    expect(unknown.status).toBe(404);
    expect(r.body).toBe(unknown.body);
    const s = await rawSession(url, key);
    const stolen = await raw(url, {
      headers: { ...s.headers, authorization: `Bearer ${theirs}` },
      body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
    });
    expect(stolen.status).toBe(404);
  });

  it("refuses a foreign Origin or Host with 403 (DNS rebinding)", async () => {
    const evil = await post({ authorization: `Bearer ${key}`, origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    const rebound = await post({ authorization: `Bearer ${key}`, host: "evil.example:80" });
    expect(rebound.status).toBe(403);
    const own = await post({ authorization: `Bearer ${key}`, origin: base });
    expect(own.status).toBe(200);
  });

  it("checks sessions, protocol versions and Accept per the specification", async () => {
    const headers = { authorization: `Bearer ${key}`, accept: MCP_ACCEPT };
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const noSession = await raw(url, { headers, body: list });
    expect(noSession.status).toBe(400);
    expect(noSession.json()).toMatchObject({ error: { message: GATEWAY_TEXT.sessionRequired } });
    expect((await raw(url, { headers: { ...headers, "mcp-session-id": "made-up" }, body: list })).status).toBe(404);
    const s = await rawSession(url, key);
    const badVersion = await raw(url, { headers: { ...s.headers, "mcp-protocol-version": "1999-01-01" }, body: list });
    expect(badVersion.status).toBe(400);
    const jsonOnly = await raw(url, { headers: { ...s.headers, accept: "application/json" }, body: list });
    expect(jsonOnly.status).toBe(406);
    const notJson = await raw(url, { headers: s.headers, body: "{not json" });
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toMatchObject({ error: { code: -32700 } });
    const batch = await raw(url, { headers: s.headers, body: [list] });
    expect(batch.status).toBe(400);
  });

  it("the playground: the owner's browser session cookie, from the site's own pages only", async () => {
    const cookie = owner.jar.header();
    expect(cookie).toContain("session_token");
    // From the site's page (Origin), then a same-origin GET without Origin (Sec-Fetch-Site).
    const ok = await post({ cookie, origin: base, "sec-fetch-site": "same-origin" });
    expect(ok.status, ok.body).toBe(200);
    const sessionId = ok.headers["mcp-session-id"] as string;
    const h = {
      cookie,
      accept: MCP_ACCEPT,
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
      "sec-fetch-site": "same-origin",
    };
    await new Promise((r) => setTimeout(r, 300)); // earlier counts written (USAGE_FLUSH_MS is 50 here)
    const before = await usage("owner/fixture");
    const call = await raw(url, {
      headers: { ...h, origin: base },
      body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: "from the playground" } } },
    });
    expect(call.json()).toMatchObject({ result: { content: [{ text: "from the playground" }] } });
    // The owner trying their own server is not use: Total Usage stays, and the request log marks
    // the playground's requests and leaves them out unless asked for.
    await new Promise((r) => setTimeout(r, 300));
    expect(await usage("owner/fixture")).toBe(before);
    const logged = async (query = "") =>
      (await (await owner.get(`/api/deployments/${deployment.id}/requests?name=echo${query}`)).json()) as {
        requests: { name: string; playground: boolean; client_name: string | null }[];
      };
    expect((await logged()).requests.filter((r) => r.playground)).toEqual([]);
    const shown = (await logged("&playground=1")).requests.filter((r) => r.playground);
    expect(shown.length).toBeGreaterThanOrEqual(1);
    expect(shown[0]).toMatchObject({ name: "echo", playground: true });
    // The same call with a key is use, and is in the log as any client's.
    const viaKey = await rawSession(url, key);
    expect((await viaKey.call(9, "tools/call", { name: "echo", arguments: { message: "from a client" } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(await usage("owner/fixture")).toBe(before + 2); // its initialize and its call
    expect((await logged()).requests.some((r) => !r.playground)).toBe(true);
    // The session belongs to the cookie's user: another user's browser cannot use its id.
    const eve = await signedInUser(t, "eve@example.com");
    const stolen = await raw(url, {
      headers: { ...h, cookie: eve.jar.header(), origin: base },
      body: { jsonrpc: "2.0", id: 3, method: "tools/list" },
    });
    expect(stolen.status).toBe(404);

    // Another site's page, a request that says it is cross-site or same-site, and a bare cookie (curl, a server) are refused.
    expect((await post({ cookie, origin: "https://evil.example" })).status).toBe(403);
    for (const site of ["cross-site", "same-site", "none"])
      expect((await post({ cookie, origin: base, "sec-fetch-site": site })).status).toBe(401);
    const bare = await post({ cookie });
    expect(bare.status).toBe(401);
    expect(bare.json()).toMatchObject({ error: { message: GATEWAY_TEXT.missingKey } });
    // A bad key next to a good cookie is a bad key: no falling back to the cookie.
    expect((await post({ cookie, origin: base, authorization: "Bearer sb_nope" })).status).toBe(401);
    // A made-up or signed-out cookie is nobody.
    expect((await post({ cookie: "better-auth.session_token=forged.value", origin: base })).status).toBe(401);
    // Another signed-in user's browser gets 404 for this deployment, as with their key.
    expect((await post({ cookie: eve.jar.header(), origin: base })).status).toBe(404);
  });

  it("signing out ends the playground's sessions at once, their open streams included", async () => {
    // A second sign-in of the owner (a second browser), so the owner's other clients carry on.
    const browser = client(t.app, base);
    expect((await browser.post("/api/auth/sign-in/email", { email: "owner@example.com", password: "password123" })).status).toBe(200);
    const cookie = browser.jar.header();
    const opened = await post({ cookie, origin: base });
    expect(opened.status).toBe(200);
    const h = {
      cookie,
      accept: "text/event-stream",
      "mcp-session-id": opened.headers["mcp-session-id"] as string,
      "mcp-protocol-version": "2025-06-18",
      "sec-fetch-site": "same-origin",
    };
    const stream = sseRequest(url, { method: "GET", headers: h });
    expect((await stream.response).statusCode).toBe(200);
    expect((await browser.post("/api/auth/sign-out", {})).status).toBe(200);
    // The stream ends (the promise settles with no further event), and the cookie no longer opens anything.
    expect(await Promise.race([stream.next(), new Promise((r) => setTimeout(() => r("still open"), 5000))])).toBeNull();
    expect((await post({ cookie, origin: base })).status).toBe(401);
    // The owner's other sign-in and keys are untouched.
    expect((await post({ cookie: owner.jar.header(), origin: base })).status).toBe(200);
    expect((await post({ authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it("idle sessions expire (GATEWAY_SESSION_IDLE_MS)", async () => {
    const s = await rawSession(url, key);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await s.call(2, "tools/list")).status).toBe(404);
  });
});
