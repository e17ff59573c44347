import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, type Client, type TestApp } from "~support/app.js";
import { waitForStatus } from "~support/deployments.js";
import { startRunningFixture, type RunningFixture } from "~support/deployments-app.js";
import { raw, sdkClient, textOf } from "~support/gateway.js";
import type { DeploymentView } from "~/shared/deployments.js";

// Prometheus metrics of a real platform: a deployed fixture server, the official SDK client
// through the gateway, and scrapes on the public port (with the token) and the internal port.

const TOKEN = "metrics-token-for-the-test-0123456789";
let f: RunningFixture;
let t: TestApp;
let base: string;
let internal: string;
let owner: Client & { id: string };
let key: string;
let deployment: DeploymentView;

/** The value of one sample line (`name{labels} value`), 0 when the series does not exist yet. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const scrape = async () => {
  const r = await raw(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  return r.body;
};

beforeAll(async () => {
  const metricsPort = await freePort();
  f = await startRunningFixture({
    RESTART_BACKOFF_MS: "200",
    METRICS_TOKEN: TOKEN,
    METRICS_PORT: String(metricsPort),
    METRICS_HOST: "127.0.0.1",
  });
  ({ t, base, owner, key, deployment } = f);
  internal = `http://127.0.0.1:${metricsPort}`;
}, 120_000);
afterAll(() => f?.close());

describe("who may scrape", () => {
  it("refuses the public /metrics without the token or with a wrong one, and answers with it", async () => {
    for (const headers of [
      {},
      { authorization: "Bearer wrong-token-wrong-token-wrong" },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${TOKEN}` },
    ] as Record<string, string>[]) {
      const r = await raw(`${base}/metrics`, { headers });
      expect(r.status).toBe(401);
      expect(r.json()).toMatchObject({ code: "unauthorized", error: expect.any(String) });
      expect(r.body).not.toContain("switchboard_");
    }
    const ok = await raw(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.body).toContain("# TYPE switchboard_gateway_requests_total counter");
    expect(ok.body).toContain("process_resident_memory_bytes");
  });

  it("answers on the internal port without a token, and only /metrics there", async () => {
    const r = await raw(`${internal}/metrics`);
    expect(r.status).toBe(200);
    expect(r.body).toContain("switchboard_deployments{");
    for (const path of ["/", "/healthz", "/api/health", "/metrics/x", "/metricsx"])
      expect((await raw(`${internal}${path}`)).status, path).toBe(404);
    expect((await raw(`${internal}/metrics`, { method: "POST", body: "{}" })).status).toBe(404);
  });
});

describe("a gateway-only process", () => {
  it("answers /metrics with the token too (its app has no web routes)", async () => {
    const gw = await createTestApp({ ROLES: "gateway", CLUSTER_SECRET: "c".repeat(40), METRICS_TOKEN: TOKEN }, { sameDatabaseAs: t });
    try {
      expect((await gw.app.request("/metrics")).status).toBe(401);
      const r = await gw.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(200);
      const text = await r.text();
      // The same database: the same deployments, whichever process is scraped.
      expect(sample(text, 'switchboard_deployments{status="running"}')).toBe(1);
      expect(sample(text, "switchboard_gateway_sessions_open")).toBe(0);
      expect(text).not.toContain("switchboard_runner_deployments ");
    } finally {
      await gw.close();
    }
  });
});

describe("what the figures say", () => {
  it("counts exactly the tool calls made, by outcome, with their latencies", async () => {
    const client = await sdkClient(deployment.url, key);
    const before = await scrape();
    expect(sample(before, "switchboard_gateway_sessions_open")).toBeGreaterThanOrEqual(1);
    const n = 7;
    for (let i = 0; i < n; i++)
      expect(textOf(await client.callTool({ name: "echo", arguments: { message: `call ${i}` } }))).toBe(`call ${i}`);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
    const after = await scrape();
    const moved = (series: string) => sample(after, series) - sample(before, series);
    expect(moved('switchboard_gateway_requests_total{method="tools/call",outcome="ok"}')).toBe(n);
    expect(moved('switchboard_gateway_requests_total{method="tools/call",outcome="error"}')).toBe(1);
    expect(moved('switchboard_gateway_requests_total{method="tools/call",outcome="tool_error"}')).toBe(0);
    expect(moved('switchboard_gateway_request_duration_seconds_count{method="tools/call"}')).toBe(n + 1);
    expect(moved('switchboard_gateway_request_duration_seconds_bucket{le="+Inf",method="tools/call"}')).toBe(n + 1);
    // Never a deployment id, proxy id or tool name in a label.
    for (const id of [deployment.id, deployment.proxy_id, "echo", "no_such_tool"]) expect(after).not.toContain(id);
    await client.close();
  });

  it("shows the running deployment, this runner's memory and its install", async () => {
    const text = await scrape();
    expect(sample(text, 'switchboard_deployments{status="running"}')).toBe(1);
    expect(sample(text, 'switchboard_deployments{status="failed"}')).toBe(0);
    expect(sample(text, "switchboard_runner_deployments")).toBe(1);
    expect(sample(text, 'switchboard_runner_memory_bytes{kind="deployments"}')).toBeGreaterThan(1024 * 1024);
    expect(sample(text, 'switchboard_runner_memory_bytes{kind="reserved"}')).toBe(t.config.DEPLOY_MEMORY_MB * 1024 * 1024);
    expect(sample(text, 'switchboard_deployment_install_duration_seconds_count{outcome="ok"}')).toBe(1);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    // What its server costs the platform: it has answered calls, so some of its output was handled.
    expect(sample(text, 'switchboard_runner_output_cpu_seconds{stat="sum"}')).toBeGreaterThan(0);
    expect(sample(text, 'switchboard_runner_output_cpu_seconds{stat="max"}')).toBe(
      sample(text, 'switchboard_runner_output_cpu_seconds{stat="sum"}'),
    );
    expect(sample(text, 'switchboard_runner_output_throttled_seconds{stat="sum"}')).toBe(0);
    expect(sample(text, 'switchboard_runner_input_held_bytes{stat="max"}')).toBe(0);
    expect(sample(text, "switchboard_gateway_stream_bytes_held")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "switchboard_gateway_streams_closed_slow_total")).toBe(0);
  });

  it("counts API requests by route pattern, never by the path with its ids", async () => {
    const series = 'switchboard_http_requests_total{method="GET",route="/api/deployments/:id/logs",status="200"}';
    const before = sample(await scrape(), series);
    for (let i = 0; i < 3; i++) expect((await owner.get(`/api/deployments/${deployment.id}/logs`)).status).toBe(200);
    const after = await scrape();
    expect(sample(after, series) - before).toBe(3);
    expect(
      sample(after, 'switchboard_http_request_duration_seconds_count{method="GET",route="/api/deployments/:id/logs"}'),
    ).toBeGreaterThanOrEqual(3);
    expect(after).not.toContain(deployment.id);
    // Scrapes themselves are not counted.
    expect(after).not.toContain('route="/metrics"');
  });

  it("counts a restart when the server crashes", async () => {
    const series = "switchboard_deployment_restarts_total";
    const before = sample(await scrape(), series);
    const client = await sdkClient(deployment.url, key);
    await client.callTool({ name: "crash", arguments: {} }).catch(() => undefined);
    await client.close().catch(() => undefined);
    const deadline = Date.now() + 15_000;
    while (sample(await scrape(), series) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(sample(await scrape(), series) - before).toBe(1);
    await waitForStatus(owner, "owner/fixture", "running", 30_000);
  });
});
