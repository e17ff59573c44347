import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type TestApp } from "../support/app.js";
import { ensureConformanceTools, runConformance, type ConformanceTools } from "../support/conformance.js";
import { registerOwnedServer, waitForStatus } from "../support/deployments.js";
import { MCP_ACCEPT, newApiKey, raw, rawSession, sseRequest } from "../support/gateway.js";
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
  const owner = await signedInUser(t, "conformance@example.com");
  key = await newApiKey(owner, "conformance");
  await registerOwnedServer(owner, "conformance/everything", "Conformance fixture");
  expect((await owner.post("/api/deploy/conformance/everything", { repositoryUrl: repo.url, env: {} })).status).toBe(202);
  const d = await waitForStatus(owner, "conformance/everything", "running", 60_000);
  proxy = await forwardingProxy(proxyPort, appPort, key);
  mcpUrl = d.url;
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

describe("routing between sessions on one server process", () => {
  const caps = { sampling: {}, elicitation: {} };
  const parse = (data: string) => JSON.parse(data) as { id?: number | string; method?: string; params?: { progressToken?: unknown; progress?: number }; result?: { content: { text: string }[] } };

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
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "same" } } };
    const [ma, mb] = await Promise.all([collect(sseRequest(directUrl, { headers: a.headers, body: call })), collect(sseRequest(directUrl, { headers: b.headers, body: call }))]);
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
    const call = sseRequest(directUrl, { headers: a.headers, body: { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "test_sampling", arguments: { prompt: "What is 2+2?" } } } });
    let request: ReturnType<typeof parse> | undefined;
    while (!request) {
      const e = await call.next();
      if (e?.data) request = parse(e.data);
    }
    expect(request.method).toBe("sampling/createMessage");
    // Session b cannot answer a request that was sent to a.
    const forged = await raw(directUrl, { headers: b.headers, body: { jsonrpc: "2.0", id: request.id, result: { role: "assistant", content: { type: "text", text: "forged" }, model: "x" } } });
    expect(forged.status).toBe(202);
    const answer = await raw(directUrl, { headers: a.headers, body: { jsonrpc: "2.0", id: request.id, result: { role: "assistant", content: { type: "text", text: "4" }, model: "test-model" } } });
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
    const call = sseRequest(directUrl, { headers: s.headers, body: { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: 9 } } } });
    const priming = (await call.next())!;
    expect(priming.data).toBe("");
    expect(priming.id).toMatch(/^\d+_0$/);
    expect(priming.retry).toBe(1000);
    const first = (await call.next())!;
    expect(parse(first.data).params!.progress).toBe(0);
    call.close(); // the connection drops mid-call
    await new Promise((r) => setTimeout(r, 300)); // the call finishes meanwhile
    const resumed = sseRequest(directUrl, { method: "GET", headers: { ...s.headers, accept: "text/event-stream", "last-event-id": first.id! } });
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
    const legacy = await raw(directUrl.replace(/\/mcp$/, "/messages?sessionId=nope"), { headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT }, body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    expect(legacy.status).toBe(404);
  });
});
