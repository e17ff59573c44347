// Fair use on the gateway across processes (issue 28): two gateway processes in front of one
// runner, a Free limit of 40 requests a minute. A client alternating between the gateways gets
// no more than the limit in all, then HTTP 429 with Retry-After and a JSON-RPC error carrying its
// request's id; the refusals are in the owner's request log and in the metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  deployFixture,
  mcpUrl,
  startCluster,
  userWithKey,
  waitAllRunning,
  waitFor,
  type Cluster,
  type DeploymentRow,
  type Member,
} from "../support/cluster.js";
import { MCP_ACCEPT, raw } from "../support/gateway.js";
import { signInCookie } from "../support/process.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";

const LIMIT = 40;
const METRICS_TOKEN = "fair-use-metrics-token-0123456789";
let c: Cluster;
let repo: FixtureRepo;
let gw1: Member;
let gw2: Member;
let key: string;
let row: DeploymentRow | undefined;

beforeAll(async () => {
  repo = await createFixtureRepo();
  c = await startCluster({
    members: [
      { name: "gw-1", roles: ["web", "gateway"] },
      { name: "gw-2", roles: ["gateway"] },
      { name: "runner-a", roles: ["runner"] },
    ],
    env: { GATEWAY_RATE_FREE: String(LIMIT), METRICS_TOKEN, AUTH_RATE_LIMIT: "off" },
  });
  gw1 = c.member("gw-1");
  gw2 = c.member("gw-2");
  key = await userWithKey(c, gw1, "fay@example.com");
  await deployFixture(c, key, "fay/fixture", repo.url);
  [row] = await waitAllRunning(c, 1, 90_000);
}, 180_000);

afterAll(async () => {
  await c?.close();
  await repo?.cleanup();
});

describe("fair use across two gateway processes", () => {
  it("admits the plan's requests a minute in all, then answers 429 with Retry-After and a JSON-RPC error, whatever the key or transport", async () => {
    // Each gateway directly (as the balancer would send them), with the public Host.
    const host = new URL(c.publicUrl).host;
    const headers = { authorization: `Bearer ${key}`, accept: MCP_ACCEPT, "content-type": "application/json", host };
    const at = (m: Member) => mcpUrl(m.url, row!.proxy_id);
    const init = await raw(at(gw1), {
      headers,
      body: {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fair", version: "1" } },
      },
    });
    expect(init.status).toBe(200);
    const session = { ...headers, "mcp-session-id": init.headers["mcp-session-id"] as string, "mcp-protocol-version": "2025-06-18" };
    const answers = [];
    for (let i = 1; i <= 80; i++) {
      const r = await raw(at(i % 2 ? gw2 : gw1), {
        headers: session,
        body: { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { message: `m${i}` } } },
      });
      answers.push({ i, via: i % 2 ? "gw-2" : "gw-1", ...r });
    }
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok.length + refused.length, c.logs()).toBe(80);
    // The initialize counted too. Shares leased by one process and not spent are lost to the other: a few at most.
    expect(ok.length).toBeLessThanOrEqual(LIMIT - 1);
    expect(ok.length).toBeGreaterThanOrEqual(LIMIT - 6);
    // Both processes refused: neither admitted a budget of its own.
    expect(new Set(refused.map((a) => a.via))).toEqual(new Set(["gw-1", "gw-2"]));
    for (const a of refused) {
      const retry = Number(a.headers["retry-after"]);
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      const body = a.json<{ id: number; error: { code: number; message: string } }>();
      expect(body.id).toBe(a.i);
      expect(body.error.code).toBe(-32000);
      expect(body.error.message).toMatch(/^Too Many Requests: its plan allows 40 requests a minute/);
    }

    // The owner's request log says so, and so do the metrics of the gateway that refused.
    // (written in batches: asked until all are there)
    type Log = { requests: { method: string; name: string | null; outcome: string }[] };
    const readLog = async () =>
      (await (await api(c.publicUrl, key, `/api/deployments/${row!.id}/requests?outcome=rate_limited&limit=500`)).json()) as Log;
    const log = await waitFor(
      "the refusals in the request log",
      async () => {
        const l = await readLog();
        return l.requests.length >= refused.length ? l : undefined;
      },
      10_000,
    );
    expect(log.requests.length).toBe(refused.length);
    expect(log.requests[0]).toMatchObject({ method: "tools/call", name: "echo", outcome: "rate_limited" });
    const metrics = await (await fetch(`${gw2.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toMatch(/switchboard_gateway_requests_total\{method="tools\/call",outcome="rate_limited"\} [1-9]/);

    // The deployment's budget is spent: a fresh key of the same owner, the stateless 2026-07-28
    // lane and the legacy SSE transport do not open a new one.
    const cookie = await signInCookie(gw1.url, "fay@example.com", c.publicUrl);
    const made = await fetch(`${gw1.url}/api/auth/apikeys`, {
      method: "POST",
      headers: { cookie, origin: c.publicUrl, "content-type": "application/json", host },
      body: JSON.stringify({ name: "second" }),
    });
    expect(made.status).toBe(201);
    const second = ((await made.json()) as { apiKey: string }).apiKey;
    const fresh = { ...headers, authorization: `Bearer ${second}` };
    const stateless = await raw(at(gw2), {
      headers: { ...fresh, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" },
      body: {
        jsonrpc: "2.0",
        id: 900,
        method: "tools/call",
        params: {
          name: "echo",
          arguments: { message: "again" },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "fair", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
    });
    expect(stateless.status, stateless.body).toBe(429);
    expect(stateless.json<{ id: number }>().id).toBe(900);
    const sse = await raw(at(gw1).replace(/\/mcp$/, "/sse"), {
      headers: { authorization: `Bearer ${second}`, accept: "text/event-stream", host },
    });
    expect(sse.status).toBe(429);
    expect(Number(sse.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
