import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type TestApp } from "../support/app.js";
import { ensureConformanceTools, runConformance, type ConformanceTools } from "../support/conformance.js";
import { registerOwnedServer, waitForStatus } from "../support/deployments.js";
import { MCP_ACCEPT, newApiKey, raw, rawSession, sdkClient, sdkV2Client, sseRequest, textOf } from "../support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";

// The official MCP conformance suite (server scenarios, active suite) against a stdio server
// deployed through Switchboard like any other, reached through the gateway. The suite cannot send
// headers, so a small forwarding proxy in front adds the owner's API key and passes everything
// else - Host and Origin included - through unchanged: the DNS-rebinding scenario still reaches
// the gateway's own checks. PUBLIC_URL is the proxy's address, as behind any reverse proxy.

let t: TestApp;
let repo: FixtureRepo;
let tools: ConformanceTools;
let proxy: http.Server;
let mcpUrl: string;
/** the same deployment straight at the app's port (a loopback Host the gateway accepts) */
let directUrl: string;
let key: string;
let owner: Awaited<ReturnType<typeof signedInUser>>;
let deploymentId: string;

function forwardingProxy(port: number, target: number, key: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      { host: "127.0.0.1", port: target, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  tools = await ensureConformanceTools();
  const [appPort, proxyPort] = [await freePort(), await freePort()];
  t = await createTestApp({ GIT_ALLOW_FILE: "on", PORT: String(appPort), PUBLIC_URL: `http://127.0.0.1:${proxyPort}` });
  await t.listen();
  repo = await createFixtureRepo({ fixture: "conformance-server" });
  owner = await signedInUser(t, "conformance@example.com");
  key = await newApiKey(owner, "conformance");
  await registerOwnedServer(owner, "conformance/everything", "Conformance fixture");
  expect((await owner.post("/api/deploy/conformance/everything", { repositoryUrl: repo.url, env: {} })).status).toBe(202);
  const d = await waitForStatus(owner, "conformance/everything", "running", 60_000);
  proxy = await forwardingProxy(proxyPort, appPort, key);
  mcpUrl = d.url;
  deploymentId = d.id;
  directUrl = `http://127.0.0.1:${appPort}/${d.proxy_id}/mcp`;
  expect(mcpUrl).toBe(`http://127.0.0.1:${proxyPort}/${d.proxy_id}/mcp`);
}, 600_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  await t?.close();
  await repo?.cleanup();
});

describe("MCP conformance suite through the gateway", () => {
  for (const specVersion of ["2025-06-18", "2025-11-25"] as const) {
    it(`passes every active server scenario for ${specVersion}`, { timeout: 300_000 }, async () => {
      const r = await runConformance({ ...tools, url: mcpUrl, specVersion });
      expect(r.failed, r.output).toEqual([]);
      expect(r.passed.length, r.output).toBeGreaterThanOrEqual(specVersion === "2025-11-25" ? 30 : 26);
      if (specVersion === "2025-11-25") expect(r.passed).toContain("dns-rebinding-protection");
    });
  }
});

// The 2026-07-28 revision on the same deployment (and the same URL) the conformance suite and the
// session clients use: the SDK v2 client pinned to it (stateless), probing for it ('auto'), and as
// shipped (the 2025 handshake), and the v1 client, all at once.
describe("2026-07-28 (stateless) beside the session revisions, on one URL", () => {
  const M = (extra: Record<string, unknown> = {}) => ({
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    ...extra,
  });
  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    raw(directUrl, {
      headers: {
        authorization: `Bearer ${key}`,
        accept: MCP_ACCEPT,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": String(body.method),
        ...headers,
      },
      body: { jsonrpc: "2.0", ...body },
    });

  it("the v2 client pinned to 2026-07-28 discovers, lists, calls (progress, logs on request), prompts and reads, with no session", async () => {
    const c = await sdkV2Client(directUrl, key, "pin");
    expect(c.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(c.getServerVersion()).toMatchObject({ name: expect.any(String) });
    const tools = await c.listTools();
    expect(tools.tools.map((x) => x.name)).toContain("test_simple_text");
    expect(textOf(await c.callTool({ name: "test_simple_text", arguments: {} }))).toBe("This is a simple text response for testing.");
    const progress: number[] = [];
    const r = await c.callTool({ name: "test_tool_with_progress", arguments: {} }, { onprogress: (p) => void progress.push(p.progress) });
    expect(textOf(r)).toMatch(/Progress tool finished/);
    expect(progress).toEqual([0, 50, 100]);
    // Logs only when the request asks for them.
    const logs: unknown[] = [];
    c.setNotificationHandler("notifications/message", (n) => void logs.push(n.params.data));
    await c.callTool({ name: "test_tool_with_logging", arguments: {} });
    expect(logs).toEqual([]);
    await c.callTool({ name: "test_tool_with_logging", arguments: {}, _meta: { "io.modelcontextprotocol/logLevel": "info" } });
    expect(logs.length).toBeGreaterThan(0);
    const prompts = await c.listPrompts();
    expect(prompts.prompts.map((p) => p.name)).toContain("test_simple_prompt");
    expect((await c.getPrompt({ name: "test_simple_prompt" })).messages.length).toBeGreaterThan(0);
    const resources = await c.listResources();
    const first = resources.resources[0]!;
    expect((await c.readResource({ uri: first.uri })).contents[0]).toMatchObject({ uri: first.uri });
    await c.close();
  }, 60_000);

  it("a server's sampling and elicitation requests come back as input_required rounds the client answers; the server's call carries on", async () => {
    const c = await sdkV2Client(directUrl, key, "pin", { capabilities: { sampling: {}, elicitation: { form: {} } } });
    c.setRequestHandler("sampling/createMessage", async () => ({
      role: "assistant",
      content: { type: "text", text: "4" },
      model: "test-model",
    }));
    c.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { username: "ada", email: "ada@example.com" } }));
    expect(textOf(await c.callTool({ name: "test_sampling", arguments: { prompt: "What is 2+2?" } }))).toBe("LLM response: 4");
    expect(textOf(await c.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } }))).toContain("action=accept");
    await c.close();
  }, 60_000);

  it("subscriptions/listen delivers list changes, the gateway's own (an owner hiding a tool) included, and updates of the resources asked for", async () => {
    const c = await sdkV2Client(directUrl, key, "pin");
    let told = 0;
    c.setNotificationHandler("notifications/tools/list_changed", () => void told++);
    const sub = await c.listen({ toolsListChanged: true });
    expect(sub.honoredFilter).toMatchObject({ toolsListChanged: true });
    expect((await owner.put(`/api/deployments/${deploymentId}/tools`, { hidden: ["test_error_handling"] })).status).toBe(200);
    for (const deadline = Date.now() + 5000; told === 0 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    expect(told).toBeGreaterThan(0);
    expect((await c.listTools()).tools.map((x) => x.name)).not.toContain("test_error_handling");
    expect((await owner.put(`/api/deployments/${deploymentId}/tools`, { hidden: [] })).status).toBe(200);
    await sub.close();
    // A resource subscription: the server is subscribed, its update arrives, and closing lets go.
    const updated: string[] = [];
    c.setNotificationHandler("notifications/resources/updated", (n) => void updated.push(n.params.uri));
    const watch = await c.listen({ resourceSubscriptions: ["test://watched-resource"] });
    expect(watch.honoredFilter).toMatchObject({ resourceSubscriptions: ["test://watched-resource"] });
    await new Promise((r) => setTimeout(r, 200)); // the server's resources/subscribe answered
    expect(textOf(await c.callTool({ name: "test_trigger_resource_update", arguments: {} }))).toBe("updated: test://watched-resource");
    for (const deadline = Date.now() + 5000; updated.length === 0 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    expect(updated).toEqual(["test://watched-resource"]);
    await watch.close();
    await new Promise((r) => setTimeout(r, 300));
    // Closed: no more updates reach this client (the server stays subscribed while other clients are).
    await c.callTool({ name: "test_trigger_resource_update", arguments: {} });
    await new Promise((r) => setTimeout(r, 300));
    expect(updated).toEqual(["test://watched-resource"]);
    await c.close();
  }, 60_000);

  it("the v2 client probing ('auto') gets 2026-07-28; as shipped it gets a 2025 session; the v1 client too; all on the same URL at once", async () => {
    const [auto, shipped, v1] = await Promise.all([
      sdkV2Client(directUrl, key, "auto"),
      sdkV2Client(directUrl, key, "default"),
      sdkClient(directUrl, key),
    ]);
    expect(auto.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(shipped.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    const texts = await Promise.all(
      [auto, shipped, v1].map(async (c) => textOf(await (c as typeof v1).callTool({ name: "test_simple_text", arguments: {} }))),
    );
    expect(texts).toEqual(Array(3).fill("This is a simple text response for testing."));
    for (const c of [auto, shipped, v1]) await c.close();
  }, 60_000);

  it("an input_required round on the wire: the question, a sealed requestState, the retry's answer; a replayed or altered state is refused", async () => {
    const caps = { "io.modelcontextprotocol/clientCapabilities": { sampling: {} } };
    const call = (id: number, extra: Record<string, unknown> = {}) =>
      post(
        { id, method: "tools/call", params: { name: "test_sampling", arguments: { prompt: "What is 2+2?" }, ...extra, _meta: M(caps) } },
        { "mcp-name": "test_sampling" },
      );
    const first = await call(1);
    expect(first.status).toBe(200);
    const asked = first.json<{
      id: number;
      result: {
        resultType: string;
        inputRequests: Record<string, { method: string; params: { messages: unknown[] } }>;
        requestState: string;
      };
    }>();
    expect(asked.id).toBe(1);
    expect(asked.result.resultType).toBe("input_required");
    const [key, question] = Object.entries(asked.result.inputRequests)[0]!;
    expect(question.method).toBe("sampling/createMessage");
    expect(question.params.messages).toEqual([{ role: "user", content: { type: "text", text: "What is 2+2?" } }]);
    // Altered (a character of the seal, or only the spare bits of its last one): refused, and the call still waits for the real one.
    const state = asked.result.requestState;
    const seal = state.slice(state.lastIndexOf(".") + 1);
    const flip = (c: string) => (c === "A" ? "B" : "A");
    const mid = state.length - Math.floor(seal.length / 2);
    const last = seal.at(-1)!;
    const spare = "AEIMQUYcgkosw048"[Math.floor("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(last) / 4)]!;
    const variants = [
      state.slice(0, mid) + flip(state[mid]!) + state.slice(mid + 1),
      state.slice(0, -1) + (spare === last ? String.fromCharCode(last.charCodeAt(0) + 1) : spare),
    ];
    for (const [i, altered] of variants.entries()) {
      const bad = await call(10 + i, {
        inputResponses: { [key]: { role: "assistant", content: { type: "text", text: "5" }, model: "m" } },
        requestState: altered,
      });
      expect(bad.json()).toMatchObject({ id: 10 + i, error: { code: -32602, message: "Invalid or expired requestState" } });
    }
    const done = await call(3, {
      inputResponses: { [key]: { role: "assistant", content: { type: "text", text: "4" }, model: "m" } },
      requestState: asked.result.requestState,
    });
    expect(done.json()).toMatchObject({ id: 3, result: { resultType: "complete", content: [{ type: "text", text: "LLM response: 4" }] } });
    // Replayed: the call it continued is over.
    const replay = await call(4, {
      inputResponses: { [key]: { role: "assistant", content: { type: "text", text: "4" }, model: "m" } },
      requestState: asked.result.requestState,
    });
    expect(replay.json()).toMatchObject({ id: 4, error: { code: -32602, message: "Invalid or expired requestState" } });
  });

  it("listen streams are bounded per caller, and end when the key they were opened with is revoked", async () => {
    const spare = await newApiKey(owner, "listener");
    const listen = (k: string, id: number) =>
      sseRequest(directUrl, {
        headers: {
          authorization: `Bearer ${k}`,
          accept: MCP_ACCEPT,
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen",
        },
        body: { jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: M() } },
      });
    const streams = [];
    for (let i = 0; i < 10; i++) {
      const s = listen(spare, i);
      const ack = JSON.parse((await s.next())!.data) as { method: string; params: { _meta: Record<string, unknown> } };
      expect(ack.method).toBe("notifications/subscriptions/acknowledged");
      expect(ack.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe(i);
      streams.push(s);
    }
    const eleventh = await raw(directUrl, {
      headers: {
        authorization: `Bearer ${spare}`,
        accept: MCP_ACCEPT,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen",
      },
      body: { jsonrpc: "2.0", id: 10, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: M() } },
    });
    expect(eleventh.json()).toMatchObject({ id: 10, error: { code: -32603, message: "Subscription limit reached" } });
    // Revoking the key ends every stream opened with it.
    expect((await owner.del("/api/auth/apikeys/listener")).status).toBe(200);
    for (const s of streams) {
      for (;;) {
        const e = await s.next(5000);
        if (e === null) break;
      }
    }
  });

  it("answers a mismatched or malformed request with the revision's own errors", async () => {
    // No client capabilities in the envelope.
    const noCaps = await post({
      id: 1,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    });
    expect([noCaps.status, noCaps.json<{ error: { code: number } }>().error.code]).toEqual([400, -32602]);
    // A modern header without the envelope.
    const bare = await post({ id: 2, method: "tools/list", params: {} });
    expect([bare.status, bare.json<{ error: { code: number } }>().error.code]).toEqual([400, -32602]);
    // Header and body disagree.
    const mismatch = await post({
      id: 3,
      method: "tools/list",
      params: { _meta: M({ "io.modelcontextprotocol/protocolVersion": "v999" }) },
    });
    expect([mismatch.status, mismatch.json<{ error: { code: number } }>().error.code]).toEqual([400, -32020]);
    const wrongMethod = await post({ id: 4, method: "tools/list", params: { _meta: M() } }, { "mcp-method": "prompts/list" });
    expect([wrongMethod.status, wrongMethod.json<{ error: { code: number } }>().error.code]).toEqual([400, -32020]);
    const wrongName = await post(
      { id: 5, method: "tools/call", params: { name: "test_simple_text", arguments: {}, _meta: M() } },
      { "mcp-name": "test_error_handling" },
    );
    expect([wrongName.status, wrongName.json<{ error: { code: number } }>().error.code]).toEqual([400, -32020]);
    // A revision this server does not speak: -32022 with the ones it does.
    const future = await post(
      { id: 6, method: "tools/list", params: { _meta: M({ "io.modelcontextprotocol/protocolVersion": "v999" }) } },
      { "mcp-protocol-version": "v999" },
    );
    expect(future.status).toBe(400);
    expect(future.json()).toMatchObject({
      id: 6,
      error: { code: -32022, data: { supported: expect.arrayContaining(["2026-07-28", "2025-11-25", "2025-06-18"]), requested: "v999" } },
    });
    // What this revision removed is not found; a requestState nobody sealed is refused.
    for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "unknown/method"]) {
      const r = await post({ id: 7, method, params: { _meta: M() } });
      expect([method, r.status, r.json<{ id: number; error: { code: number } }>().error.code]).toEqual([method, 404, -32601]);
    }
    const tampered = await post(
      {
        id: 8,
        method: "tools/call",
        params: { name: "test_sampling", arguments: { prompt: "x" }, inputResponses: {}, requestState: "v1.e30.AAAA", _meta: M() },
      },
      { "mcp-name": "test_sampling" },
    );
    expect(tampered.json()).toMatchObject({ id: 8, error: { code: -32602, message: "Invalid or expired requestState" } });
    // A plain 2025 initialize still opens a session on the same URL.
    const legacy = await raw(directUrl, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 9,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "old", version: "1" } },
      },
    });
    expect(legacy.status).toBe(200);
    expect(legacy.headers["mcp-session-id"]).toBeTruthy();
  });
});

describe("routing between sessions on one server process", () => {
  const caps = { sampling: {}, elicitation: {} };
  const parse = (data: string) =>
    JSON.parse(data) as {
      id?: number | string;
      method?: string;
      params?: { progressToken?: unknown; progress?: number };
      result?: { content: { text: string }[] };
    };

  /** Every message of a POST answered as a stream, until its response. */
  async function collect(stream: ReturnType<typeof sseRequest>) {
    const msgs: ReturnType<typeof parse>[] = [];
    for (;;) {
      const e = await stream.next();
      if (!e) return msgs;
      if (!e.data) continue; // priming event
      const m = parse(e.data);
      msgs.push(m);
      if (m.result !== undefined || "error" in m) return msgs;
    }
  }

  it("gives each session its own progress notifications when request ids and progress tokens collide", async () => {
    const [a, b] = await Promise.all([rawSession(directUrl, key, "2025-11-25", caps), rawSession(directUrl, key, "2025-11-25", caps)]);
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "same" } },
    };
    const [ma, mb] = await Promise.all([
      collect(sseRequest(directUrl, { headers: a.headers, body: call })),
      collect(sseRequest(directUrl, { headers: b.headers, body: call })),
    ]);
    for (const msgs of [ma, mb]) {
      const progress = msgs.filter((m) => m.method === "notifications/progress");
      expect(progress.map((m) => m.params!.progress)).toEqual([0, 50, 100]);
      expect(progress.every((m) => m.params!.progressToken === "same")).toBe(true);
      expect(msgs.at(-1)!.id).toBe(1);
      expect(msgs.at(-1)!.result!.content[0]!.text).toMatch(/Progress tool finished/);
    }
  });

  it("sends a sampling request to the session whose call is in flight, and only there", async () => {
    const [a, b] = await Promise.all([rawSession(directUrl, key, "2025-11-25", caps), rawSession(directUrl, key, "2025-11-25", caps)]);
    const bStream = sseRequest(directUrl, { method: "GET", headers: { ...b.headers, accept: "text/event-stream" } });
    expect((await bStream.response).statusCode).toBe(200);
    const call = sseRequest(directUrl, {
      headers: a.headers,
      body: { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "test_sampling", arguments: { prompt: "What is 2+2?" } } },
    });
    let request: ReturnType<typeof parse> | undefined;
    while (!request) {
      const e = await call.next();
      if (e?.data) request = parse(e.data);
    }
    expect(request.method).toBe("sampling/createMessage");
    // Session b cannot answer a request that was sent to a.
    const forged = await raw(directUrl, {
      headers: b.headers,
      body: { jsonrpc: "2.0", id: request.id, result: { role: "assistant", content: { type: "text", text: "forged" }, model: "x" } },
    });
    expect(forged.status).toBe(202);
    const answer = await raw(directUrl, {
      headers: a.headers,
      body: { jsonrpc: "2.0", id: request.id, result: { role: "assistant", content: { type: "text", text: "4" }, model: "test-model" } },
    });
    expect(answer.status).toBe(202);
    const rest = await collect(call);
    expect(rest.at(-1)).toMatchObject({ id: 5, result: { content: [{ text: "LLM response: 4" }] } });
    // b's GET stream saw nothing of it (only its priming event).
    await expect(bStream.next(300).then((e) => e?.data)).resolves.toBe("");
    await expect(bStream.next(300)).rejects.toThrow("no event in time");
    bStream.close();
  });

  it("resumes a broken stream from Last-Event-ID and delivers what the client missed (2025-11-25)", async () => {
    const s = await rawSession(directUrl, key, "2025-11-25", caps);
    const call = sseRequest(directUrl, {
      headers: s.headers,
      body: {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: 9 } },
      },
    });
    const priming = (await call.next())!;
    expect(priming.data).toBe("");
    expect(priming.id).toMatch(/^\d+_0$/);
    expect(priming.retry).toBe(1000);
    const first = (await call.next())!;
    expect(parse(first.data).params!.progress).toBe(0);
    call.close(); // the connection drops mid-call
    await new Promise((r) => setTimeout(r, 300)); // the call finishes meanwhile
    const resumed = sseRequest(directUrl, {
      method: "GET",
      headers: { ...s.headers, accept: "text/event-stream", "last-event-id": first.id! },
    });
    const missed = await collect(resumed);
    expect(missed.filter((m) => m.method === "notifications/progress").map((m) => m.params!.progress)).toEqual([50, 100]);
    expect(missed.at(-1)).toMatchObject({ id: 3, result: { content: [{ text: expect.stringMatching(/Progress tool finished/) }] } });
  });

  it("refuses a second GET stream on the same session (409) and legacy requests without a session (404)", async () => {
    const s = await rawSession(directUrl, key, "2025-11-25", caps);
    const first = sseRequest(directUrl, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } });
    expect((await first.response).statusCode).toBe(200);
    const second = await raw(directUrl, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } });
    expect(second.status).toBe(409);
    first.close();
    const legacy = await raw(directUrl.replace(/\/mcp$/, "/messages?sessionId=nope"), {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(legacy.status).toBe(404);
  });
});
