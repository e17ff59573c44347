import { readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { TEST_PACKAGES_DIR } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { removeDataDir } from "../support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";
import { sdkClient } from "../support/gateway.js";
import { accountWithKey, INHERITED_FD, startAppProcess, type AppProcess } from "../support/process.js";
import { waitFor } from "../support/wait.js";

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
  const running = async () => {
    const r = await api(app, "/api/deployments").catch(() => null);
    const [d] = r?.ok ? ((await r.json()) as DeploymentView[]) : [];
    return d?.status === "running" && Date.parse(d.updated_at) > after ? d : undefined;
  };
  return waitFor("running", running, 60_000, 200).catch(() => {
    throw new Error(`not running:\n${app.output()}`);
  });
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
  await removeDataDir(dataDir);
});

describe("platform restarts", () => {
  it("after kill -9 every deployment that should run is started again exactly once; SIGTERM stops children first", async () => {
    const first = await start();
    key = await accountWithKey(first, "kim@example.com");

    const reg = await api(first, "/api/servers", {
      method: "POST",
      body: {
        qualifiedName: "kim/fixture",
        displayName: "Fixture",
        description: "d",
        keywords: [],
        connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
      },
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
    await waitFor("its server process", async () => (serverProcesses(d.id).length > 0 ? true : undefined), 60_000, 100);
    await new Promise((r) => setTimeout(r, 1500));
    expect(serverProcesses(d.id)).toHaveLength(1);

    // SIGTERM: the child is stopped before the platform exits; the deployment stays for next time.
    expect(await second.stop("SIGTERM")).toBe(0);
    expect(serverProcesses(d.id)).toHaveLength(0);
    const third = await start();
    await waitRunning(third, Date.now() - 1000);
    // Placed again, its row may read 'running' from before for a moment: the process is what counts.
    await waitFor("its server process", async () => (serverProcesses(d.id).length > 0 ? true : undefined), 60_000, 100);
    await new Promise((r) => setTimeout(r, 1500));
    expect(serverProcesses(d.id)).toHaveLength(1);
    await third.stop("SIGTERM");
  }, 240_000);
});

describe("the platform process", () => {
  it("closes a descriptor it inherited without close-on-exec, so no hosted server ever holds it", async (ctx) => {
    if (process.getuid?.() !== 0) return ctx.skip("the hostile fixture's probe needs a root platform's sandbox");
    const hostile = await createFixtureRepo({ fixture: "hostile-server", executables: ["server.js"] });
    try {
      const app = await startAppProcess(env, 90_000, { inheritFd: true });
      apps.push(app);
      // The platform says which descriptor it closed (the log line is written before it listens).
      const closedLine = app
        .output()
        .split("\n")
        .find((l) => l.includes("closed descriptors inherited without close-on-exec"));
      expect(closedLine, app.output()).toBeDefined();
      expect(JSON.parse(closedLine!).fds).toContainEqual(expect.objectContaining({ fd: INHERITED_FD }));
      const k = await accountWithKey(app, "inherit@example.com");
      const call = (p: string, body?: unknown) =>
        fetch(`${app.url}${p}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${k}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const reg = await call("/api/servers", {
        qualifiedName: "inherit/hostile",
        displayName: "Hostile",
        description: "d",
        keywords: [],
        connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
      });
      expect(reg.status, await reg.clone().text()).toBe(201);
      expect((await call("/api/deploy/inherit/hostile", { repositoryUrl: hostile.url, env: {} })).status).toBe(202);
      let d: DeploymentView | undefined;
      for (
        const deadline = Date.now() + 60_000;
        Date.now() < deadline && d?.status !== "running";
        await new Promise((r) => setTimeout(r, 200))
      ) {
        [d] = (await (await call("/api/deployments")).json()) as DeploymentView[];
      }
      expect(d?.status).toBe("running");
      // Through the gateway, as any MCP client: the server started with nothing but stdin, stdout and stderr.
      const client = await sdkClient(d!.url.replace("localhost", "127.0.0.1"), k);
      const res = (await client.callTool({ name: "whoami", arguments: {} })) as { content: { text: string }[] };
      expect(JSON.parse(res.content[0]!.text)).toMatchObject({ inheritedAtStart: [] });
      await client.close();
      await app.stop("SIGTERM");
    } finally {
      await hostile.cleanup();
    }
  }, 180_000);
});
