import { readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "../../src/shared/deployments.js";
import { TEST_PACKAGES_DIR } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";
import { startAppProcess, type AppProcess } from "../support/process.js";

// The real process: deployments survive a kill -9 of the platform and come back exactly once;
// SIGTERM stops children gracefully before the platform exits.

let db: TestDatabase;
let repo: FixtureRepo;
let dataDir: string;
let env: Record<string, string>;
let key: string;
const apps: AppProcess[] = [];

/** Processes (not bwrap itself) running this deployment's server. */
function serverProcesses(deploymentId: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (argv[0] === process.execPath && argv.some((a) => a.includes(`deployments/${deploymentId}/app/server.js`))) out.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

async function start(): Promise<AppProcess> {
  const app = await startAppProcess(env, 90_000);
  apps.push(app);
  return app;
}

const api = (app: AppProcess, p: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${app.url}${p}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

async function waitRunning(app: AppProcess, after = 0): Promise<DeploymentView> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const r = await api(app, "/api/deployments").catch(() => null);
    const [d] = r?.ok ? ((await r.json()) as DeploymentView[]) : [];
    if (d?.status === "running" && Date.parse(d.updated_at) > after) return d;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not running:\n${app.output()}`);
}

beforeAll(async () => {
  db = await createTestDatabase();
  repo = await createFixtureRepo();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-recovery-"));
  env = { DATABASE_URL: db.url, DATA_DIR: dataDir, PACKAGES_DIR: TEST_PACKAGES_DIR, GIT_ALLOW_FILE: "on", AUTH_RATE_LIMIT: "off" };
}, 120_000);

afterAll(async () => {
  for (const a of apps) await a.stop("SIGKILL");
  await db?.drop();
  await repo?.cleanup();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe("platform restarts", () => {
  it("after kill -9 every deployment that should run is started again exactly once; SIGTERM stops children first", async () => {
    const first = await start();
    const origin = { origin: first.url, "content-type": "application/json" };
    // An account, confirmed through the development outbox, and an API key.
    let cookie = "";
    const post = async (p: string, body: unknown) => {
      const r = await fetch(`${first.url}${p}`, { method: "POST", headers: { ...origin, cookie }, body: JSON.stringify(body) });
      cookie = (r.headers.getSetCookie()[0]?.split(";")[0] ?? cookie) || cookie;
      return r;
    };
    expect((await post("/api/auth/sign-up/email", { email: "kim@example.com", password: "password123", name: "kim" })).status).toBe(200);
    const mail = ((await (await fetch(`${first.url}/dev/outbox.json`)).json()) as { text: string }[])[0]!;
    const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
    await fetch(`${first.url}${link.pathname}${link.search}`, { redirect: "manual" });
    expect((await post("/api/auth/sign-in/email", { email: "kim@example.com", password: "password123" })).status).toBe(200);
    key = ((await (await post("/api/auth/apikeys", { name: "ci" })).json()) as { apiKey: string }).apiKey;

    const reg = await api(first, "/api/servers", {
      method: "POST",
      body: { qualifiedName: "kim/fixture", displayName: "Fixture", description: "d", keywords: [], connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }] },
    });
    expect(reg.status).toBe(201);
    expect((await api(first, "/api/deploy/kim/fixture", { method: "POST", body: { repositoryUrl: repo.url, env: {} } })).status).toBe(202);
    const d = await waitRunning(first);
    expect(serverProcesses(d.id)).toHaveLength(1);

    first.child.kill("SIGKILL");
    await first.stop("SIGKILL");
    const killedAt = Date.now();
    const second = await start();
    const back = await waitRunning(second, killedAt);
    expect(back.id).toBe(d.id);
    expect(back.proxy_id).toBe(d.proxy_id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(serverProcesses(d.id)).toHaveLength(1);

    // SIGTERM: the child is stopped before the platform exits; the deployment stays for next time.
    expect(await second.stop("SIGTERM")).toBe(0);
    expect(serverProcesses(d.id)).toHaveLength(0);
    const third = await start();
    await waitRunning(third, Date.now() - 1000);
    expect(serverProcesses(d.id)).toHaveLength(1);
    await third.stop("SIGTERM");
  }, 240_000);
});
