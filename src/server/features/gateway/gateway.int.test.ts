import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createTestApp, freePort, signedInUser, type Client, type TestApp } from "../../../../tests/support/app.js";
import { registerOwnedServer, waitForStatus } from "../../../../tests/support/deployments.js";
import { MCP_ACCEPT, newApiKey, raw, rawSession, sdkClient, sseRequest, textOf } from "../../../../tests/support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "../../../../tests/support/git-fixture.js";
import type { DeploymentView } from "../../../shared/deployments.js";
import { GATEWAY_TEXT } from "./gateway.js";

// The gateway over real HTTP on a real port, in front of a real deployed stdio server (the
// zero-dependency fixture in tests/fixtures/mcp-fixture, deployed from a git repository).

let t: TestApp;
let repo: FixtureRepo;
let base: string;
let owner: Client & { id: string };
let key: string;
let deployment: DeploymentView;
let url: string;

async function deployFixture(c: Client, username: string, name: string): Promise<DeploymentView> {
  await registerOwnedServer(c, `${username}/${name}`, name);
  const r = await c.post(`/api/deploy/${username}/${name}`, { repositoryUrl: repo.url, env: {} });
  expect(r.status, await r.clone().text()).toBe(202);
  return waitForStatus(c, `${username}/${name}`, "running", 60_000);
}

const usage = async (qn: string) =>
  (await t.db.database.db.execute<{ use_count: number }>(sql`select use_count from servers where qualified_name = ${qn}`)).rows[0]!
    .use_count;

beforeAll(async () => {
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RESTART_BACKOFF_MS: "200",
    USAGE_FLUSH_MS: "50",
    GATEWAY_SESSION_IDLE_MS: "1500",
    GATEWAY_MAX_SESSIONS: "25",
    GATEWAY_REQUEST_TIMEOUT_MS: "1000",
    // One key makes thousands of requests here in a minute: fair use has tests of its own (fair-use.test.ts).
    GATEWAY_RATE_FREE: "0",
  });
  base = await t.listen();
  repo = await createFixtureRepo();
  owner = await signedInUser(t, "owner@example.com");
  key = await newApiKey(owner, "editor");
  deployment = await deployFixture(owner, "owner", "fixture");
  url = deployment.url;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
});

describe("Streamable HTTP through the gateway", () => {
  it("serves the deployment at the URL its panel shows, to the official SDK client", async () => {
    expect(url).toBe(`${base}/${deployment.proxy_id}/mcp`);
    const client = await sdkClient(url, key);
    expect(client.getServerVersion()?.name).toBe("mcp-fixture");
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "through the gateway" } }))).toBe("through the gateway");
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } }))).toBe("42");
    const res = await client.readResource({ uri: "fixture://readme" });
    expect((res.contents[0] as { text: string }).text).toMatch(/fixture/i);
    const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
    expect((prompt.messages[0]!.content as { text: string }).text).toBe("Hello, Ada!");
    await client.close();
  });

  it("answers a single response as application/json with a session id from initialize", async () => {
    const s = await rawSession(url, key);
    expect(s.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(s.init.result.serverInfo.name).toBe("mcp-fixture");
    const r = await s.call(7, "tools/call", { name: "echo", arguments: { message: "json" } });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.json()).toEqual({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "json" }] } });
    // A notification is accepted without a body.
    const n = await raw(url, { headers: s.headers, body: { jsonrpc: "2.0", method: "notifications/roots/list_changed" } });
    expect(n.status).toBe(202);
    expect(n.body).toBe("");
  });

  it("ends a session with DELETE; the ended session then answers 404", async () => {
    const s = await rawSession(url, key);
    const del = await raw(url, { method: "DELETE", headers: s.headers });
    expect(del.status).toBe(200);
    const after = await s.call(2, "tools/list");
    expect(after.status).toBe(404);
    expect(after.json()).toMatchObject({ error: { message: GATEWAY_TEXT.sessionNotFound } });
  });

  it("keeps 20 concurrent sessions apart even when every one uses the same request ids", async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => rawSession(url, key)));
    const results = await Promise.all(
      sessions.flatMap((s, i) =>
        Array.from({ length: 10 }, async (_, j) => {
          const r = await s.call(j + 1, "tools/call", { name: "echo", arguments: { message: `session ${i} call ${j + 1}` } });
          return { i, j, body: r.json<{ id: number; result: { content: { text: string }[] } }>() };
        }),
      ),
    );
    for (const { i, j, body } of results) {
      expect(body.id).toBe(j + 1);
      expect(body.result.content[0]!.text).toBe(`session ${i} call ${j + 1}`);
    }
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(20);
  });

  it("serves legacy HTTP+SSE clients at /sse", async () => {
    const client = await sdkClient(`${base}/${deployment.proxy_id}/sse`, key, { legacy: true });
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "legacy" } }))).toBe("legacy");
    await client.close();
  });
});

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

describe("limits that keep one client from hurting the others", () => {
  const call = (s: Awaited<ReturnType<typeof rawSession>>, id: number, name: string, args: unknown) =>
    s.call(id, "tools/call", { name, arguments: args });

  it("a call the server never answers in time gets a JSON-RPC error (GATEWAY_REQUEST_TIMEOUT_MS)", async () => {
    const s = await rawSession(url, key);
    const r = await call(s, 1, "sleep", { ms: 3000 });
    expect(r.json()).toMatchObject({ id: 1, error: { message: "The MCP server did not answer within 1 s" } });
  });

  it("a second request with an id already in flight is refused; DELETE answers the calls still running", async () => {
    const s = await rawSession(url, key);
    const first = call(s, 4, "sleep", { ms: 800 });
    await new Promise((r) => setTimeout(r, 100));
    expect((await call(s, 4, "echo", { message: "again" })).json()).toMatchObject({
      id: 4,
      error: { message: "A request with this id is already in flight in this session" },
    });
    expect((await raw(url, { method: "DELETE", headers: s.headers })).status).toBe(200);
    expect((await first).json()).toMatchObject({ id: 4, error: { message: "The session ended before the server answered" } });
  });

  it("stray output from the server (numbers, null, arrays, bad messages) is logged, and everyone carries on", async () => {
    const s = await rawSession(url, key);
    const lines = ["0", "null", "[1,2]", '"text"', '{"jsonrpc":"2.0","method":5}', '{"jsonrpc":"2.0","id":"sb999999","result":{}}'];
    expect((await call(s, 1, "print_lines", { lines })).json()).toMatchObject({ result: { content: [{ text: "printed 6 lines" }] } });
    expect((await call(s, 2, "echo", { message: "still here" })).json()).toMatchObject({ result: { content: [{ text: "still here" }] } });
    expect(t.runtime.runner.logs(deployment.id)).toEqual(expect.arrayContaining(["0", "null", "[1,2]"]));
  });

  it("a client's capabilities of the wrong type are ignored, not trusted", async () => {
    const r = await raw(url, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: 1, clientInfo: { name: "odd", version: "1" } },
      },
    });
    expect(r.status).toBe(200);
    const odd = await raw(url, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "9999-01-01", capabilities: {}, clientInfo: { name: "future", version: "1" } },
      },
    });
    expect(odd.json()).toMatchObject({ result: { protocolVersion: "2025-11-25" } }); // an unknown revision is offered the latest
  });

  it("at GATEWAY_MAX_SESSIONS idle sessions make room; when every session is busy a new client gets 429", async () => {
    const busy = await Promise.all(Array.from({ length: 25 }, () => rawSession(url, key)));
    const streams = busy.map((s) => sseRequest(url, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } }));
    await Promise.all(streams.map((x) => x.response));
    const refused = await raw(url, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "late", version: "1" } },
      },
    });
    expect(refused.status).toBe(429);
    streams[0]!.close();
    await new Promise((r) => setTimeout(r, 100));
    await expect(rawSession(url, key)).resolves.toBeDefined();
    for (const x of streams) x.close();
  });

  it("revoking a key ends the sessions opened with it, open streams included", async () => {
    const temp = await newApiKey(owner, "leaked");
    const s = await rawSession(url, temp);
    const stream = sseRequest(url, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } });
    expect((await stream.response).statusCode).toBe(200);
    expect((await owner.del("/api/auth/apikeys/leaked")).status).toBe(200);
    await expect(stream.next(3000)).resolves.toBeNull(); // the stream ends
  });
});

describe("Total Usage (requests)", () => {
  it("grows by exactly the number of requests forwarded, and not for refused ones", async () => {
    await new Promise((r) => setTimeout(r, 200)); // earlier tests' counts are written
    const before = await usage("owner/fixture");
    const sessions = await Promise.all(Array.from({ length: 5 }, () => rawSession(url, key))); // 5 initialize
    await Promise.all(
      sessions.flatMap((s) => Array.from({ length: 8 }, (_, j) => s.call(j, "tools/call", { name: "echo", arguments: { message: "x" } }))),
    ); // 40 calls
    await raw(url, { headers: { accept: MCP_ACCEPT }, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } }); // 401: not counted
    await raw(url, { headers: sessions[0]!.headers, body: { jsonrpc: "2.0", method: "notifications/roots/list_changed" } }); // a notification: not a request
    await new Promise((r) => setTimeout(r, 300));
    expect(await usage("owner/fixture")).toBe(before + 45);
    const page = await (await t.app.request(`${base}/server/owner/fixture`)).text();
    expect(page).toContain(String(before + 45));
  });
});

describe("a server that crashes", () => {
  it("gives the caller a clear JSON-RPC error, and new sessions work once it is back", async () => {
    const s = await rawSession(url, key);
    const r = await s.call(9, "tools/call", { name: "crash", arguments: {} });
    const body = r.json<{ id: number; error: { message: string } }>();
    expect(body.id).toBe(9);
    expect(body.error.message).toMatch(/The MCP server stopped while handling this request/);
    // The session died with the process; the gateway lives on.
    expect((await s.call(10, "tools/list")).status).toBe(404);
    let again: Awaited<ReturnType<typeof rawSession>> | undefined;
    for (let i = 0; i < 300 && !again; i++) {
      again = await rawSession(url, key).catch(async (e: Error) => {
        expect(e.message).toContain("503"); // restarting: a clear 'try again' until it runs
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      });
    }
    expect((await again!.call(1, "tools/call", { name: "echo", arguments: { message: "back" } })).json()).toMatchObject({
      result: { content: [{ text: "back" }] },
    });
  });
});
