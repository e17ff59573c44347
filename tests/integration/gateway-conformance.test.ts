import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type TestApp } from "../support/app.js";
import { ensureConformanceTools, runConformance, type ConformanceTools } from "../support/conformance.js";
import { waitForStatus } from "../support/deployments.js";
import { newApiKey } from "../support/gateway.js";
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
  const key = await newApiKey(owner, "conformance");
  const reg = await owner.post("/api/servers", {
    qualifiedName: "conformance/everything",
    displayName: "Conformance fixture",
    description: "Implements what the MCP conformance suite's server scenarios call",
    repositoryUrl: "https://example.com/conformance",
    keywords: "test",
    connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
  });
  expect(reg.status).toBe(201);
  expect((await owner.post("/api/deploy/conformance/everything", { repositoryUrl: repo.url, env: {} })).status).toBe(202);
  const d = await waitForStatus(owner, "conformance/everything", "running", 60_000);
  proxy = await forwardingProxy(proxyPort, appPort, key);
  mcpUrl = d.url;
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
