import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_PACKAGES_DIR } from "~support/app.js";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { removeDataDir } from "~support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import { sdkClient, textOf } from "~support/gateway.js";
import { accountWithKey, freePort, startAppProcess, type AppProcess } from "~support/process.js";
import type { DeploymentView } from "~/shared/deployments.js";

// The built app with two worker processes (`npm run start:prod` on a machine with several cores):
// whichever worker takes a scrape, and on the primary's internal port, the figures are the
// machine's: the calls the runner answered and the HTTP requests every worker served.

const TOKEN = "workers-metrics-token-0123456789";
let db: TestDatabase;
let repo: FixtureRepo;
let dataDir: string;
let app: AppProcess | undefined;

const sample = (text: string, series: string) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${series} `))
      ?.slice(series.length + 1) ?? 0,
  );

beforeAll(async () => {
  db = await createTestDatabase();
  repo = await createFixtureRepo();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-metrics-workers-"));
}, 120_000);
afterAll(async () => {
  await app?.stop("SIGKILL");
  await db?.drop();
  await repo?.cleanup();
  await removeDataDir(dataDir);
});

describe("metrics with worker processes", () => {
  it("adds up every process's figures, whichever worker is scraped", async () => {
    const metricsPort = await freePort();
    app = await startAppProcess(
      {
        WORKERS: "2",
        DATABASE_URL: db.url,
        DATA_DIR: dataDir,
        PACKAGES_DIR: TEST_PACKAGES_DIR,
        GIT_ALLOW_FILE: "on",
        AUTH_RATE_LIMIT: "off",
        METRICS_TOKEN: TOKEN,
        METRICS_PORT: String(metricsPort),
      },
      90_000,
    );
    const a = app;
    const key = await accountWithKey(a, "mia@example.com");
    // A new connection each time, so the two workers take turns.
    const call = (p: string, body?: unknown) =>
      fetch(`${a.url}${p}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", connection: "close" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const reg = await call("/api/servers", {
      qualifiedName: "mia/fixture",
      displayName: "Fixture",
      description: "d",
      keywords: [],
      connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
    });
    expect(reg.status, await reg.clone().text()).toBe(201);
    expect((await call("/api/deploy/mia/fixture", { repositoryUrl: repo.url, env: {} })).status).toBe(202);
    let d: DeploymentView | undefined;
    for (
      const deadline = Date.now() + 60_000;
      Date.now() < deadline && d?.status !== "running";
      await new Promise((r) => setTimeout(r, 200))
    ) {
      [d] = (await (await call("/api/deployments")).json()) as DeploymentView[];
    }
    expect(d?.status, a.output()).toBe("running");
    const scrape = async () => {
      const r = await fetch(`${a.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, connection: "close" } });
      expect(r.status).toBe(200);
      return r.text();
    };
    const ok = 'switchboard_gateway_requests_total{method="tools/call",outcome="ok"}';
    const apiSeries = 'switchboard_http_requests_total{method="GET",route="/api/deployments",status="200"}';
    const before = await scrape();

    const url = d!.url.replace("localhost", "127.0.0.1");
    for (let c = 0; c < 4; c++) {
      const client = await sdkClient(url, key);
      for (let i = 0; i < 3; i++)
        expect(textOf(await client.callTool({ name: "echo", arguments: { message: `${c}.${i}` } }))).toBe(`${c}.${i}`);
      await client.close();
    }
    for (let i = 0; i < 6; i++) expect((await call("/api/deployments")).status).toBe(200);

    // Several scrapes over fresh connections: each worker answers with the same, whole figures.
    for (let s = 0; s < 4; s++) {
      const text = await scrape();
      expect(sample(text, ok) - sample(before, ok)).toBe(12);
      expect(sample(text, apiSeries) - sample(before, apiSeries)).toBe(6);
      // Read from the database once, not once per process.
      expect(sample(text, 'switchboard_deployments{status="running"}')).toBe(1);
    }
    const internal = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(sample(internal, ok) - sample(before, ok)).toBe(12);
    expect(sample(internal, "switchboard_runner_deployments")).toBe(1);
  }, 240_000);
});
