import http from "node:http";
import net from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type TestApp } from "~support/app.js";
import { registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { newApiKey, raw, sdkClient, textOf } from "~support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";

// Traces of gateway calls reach an OTLP/HTTP collector: a small HTTP listener on 127.0.0.1 stands
// in for it and keeps what arrives at POST /v1/traces (OTLP JSON). The platform's close() sends
// the last batch, so the spans are read after it.

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
}
interface OtlpBody {
  resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";

let t: TestApp | undefined;
let repo: FixtureRepo;
let collector: http.Server;
const received: { path: string; contentType: string; body: OtlpBody }[] = [];
let base: string;

const attr = (s: { attributes: { key: string; value: OtlpValue }[] }, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : undefined);
};
const spans = () => received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let buf = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") buf = zlib.gunzipSync(buf);
      received.push({
        path: `${req.method} ${req.url}`,
        contentType: String(req.headers["content-type"]),
        body: JSON.parse(buf.toString("utf8")) as OtlpBody,
      });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const collectorPort = (collector.address() as net.AddressInfo).port;
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
    OTEL_SERVICE_NAME: "switchboard-under-test",
  });
  base = await t.listen();
  repo = await createFixtureRepo();
}, 120_000);
afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
  collector?.close();
});

describe("traces of gateway calls", () => {
  it("continues the client's trace from _meta, adds the server's part, and starts new traces otherwise", async () => {
    const app = t!;
    // Without METRICS_TOKEN there is no public /metrics at all.
    const none = await raw(`${base}/metrics`);
    expect(none.status).toBe(404);
    expect(none.body).not.toContain("switchboard_");
    const owner = await signedInUser(app, "owner@example.com");
    const key = await newApiKey(owner, "traces");
    await registerOwnedServer(owner, "owner/fixture", "fixture");
    expect((await owner.post("/api/deploy/owner/fixture", { repositoryUrl: repo.url, env: {} })).status).toBe(202);
    const deployment = await waitForStatus(owner, "owner/fixture", "running", 60_000);
    const client = await sdkClient(deployment.url, key);
    const traced = await client.callTool({
      name: "echo",
      arguments: { message: "traced" },
      _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: "vendor=abc" },
    });
    expect(textOf(traced)).toBe("traced");
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
    // A broken traceparent is no error: the call answers and gets a trace of its own.
    expect(
      textOf(
        await client.callTool({
          name: "echo",
          arguments: { message: "broken" },
          _meta: { traceparent: `00-${TRACE_ID}-${"0".repeat(16)}-01` },
        }),
      ),
    ).toBe("broken");
    await client.close();
    const startedAt = Date.now();
    // close() sends the batch that is still waiting.
    await app.close();
    t = undefined;

    expect(received.length).toBeGreaterThan(0);
    for (const r of received) {
      expect(r.path).toBe("POST /v1/traces");
      expect(r.contentType).toMatch(/^application\/json/);
      expect(r.body.resourceSpans[0]!.resource.attributes).toContainEqual({
        key: "service.name",
        value: { stringValue: "switchboard-under-test" },
      });
    }
    const all = spans();
    const calls = all.filter((s) => s.name === "mcp tools/call");
    expect(calls).toHaveLength(3);

    const continued = calls.find((s) => s.traceId === TRACE_ID)!;
    expect(continued).toBeDefined();
    expect(continued.parentSpanId).toBe(PARENT_ID);
    expect(continued.traceState).toBe("vendor=abc");
    expect(attr(continued, "mcp.method")).toBe("tools/call");
    expect(attr(continued, "mcp.tool.name")).toBe("echo");
    expect(attr(continued, "switchboard.deployment.id")).toBe(deployment.id);
    expect(attr(continued, "switchboard.outcome")).toBe("ok");
    expect(attr(continued, "mcp.response.bytes")).toBeGreaterThan(0);
    const start = BigInt(continued.startTimeUnixNano);
    const end = BigInt(continued.endTimeUnixNano);
    expect(end > start).toBe(true);
    expect(Number(start / 1_000_000n)).toBeLessThan(startedAt);

    const server = all.find((s) => s.parentSpanId === continued.spanId)!;
    expect(server).toBeDefined();
    expect(server.name).toBe("server tools/call");
    expect(server.traceId).toBe(TRACE_ID);
    expect(BigInt(server.startTimeUnixNano) >= start).toBe(true);
    expect(BigInt(server.endTimeUnixNano) <= end).toBe(true);

    const fresh = calls.filter((s) => s !== continued);
    expect(fresh.map((s) => attr(s, "mcp.tool.name")).sort()).toEqual(["add", "echo"]);
    for (const s of fresh) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.traceId).not.toBe(TRACE_ID);
      expect(s.parentSpanId ?? "").toBe("");
      expect(all.some((c) => c.parentSpanId === s.spanId && c.traceId === s.traceId && c.name === "server tools/call")).toBe(true);
    }
    expect(fresh[0]!.traceId).not.toBe(fresh[1]!.traceId);
  });
});
