import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { TEST_PACKAGES_DIR } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { removeDataDir } from "../support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";
import { sdkClient, textOf } from "../support/gateway.js";
import { accountWithKey, startAppProcess, type AppProcess } from "../support/process.js";

// `npm run start:prod` on a machine with several cores: one primary process holding the runner
// (and the database connection it migrated with) and WORKERS worker processes sharing the port,
// which forward MCP sessions to the primary's runner over loopback. A user sees one app.

let db: TestDatabase;
let repo: FixtureRepo;
let dataDir: string;
let app: AppProcess | undefined;

const workersOf = (pid: number) =>
  execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
    .split("\n")
    .map((l) => Number(l.trim()))
    .filter((p) => p > 0 && readCmd(p).includes("dist/server.js"));
function readCmd(pid: number): string {
  try {
    return execFileSync("cat", [`/proc/${pid}/cmdline`], { encoding: "utf8" });
  } catch {
    return "";
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  repo = await createFixtureRepo();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-workers-"));
}, 120_000);

afterAll(async () => {
  await app?.stop("SIGKILL");
  await db?.drop();
  await repo?.cleanup();
  await removeDataDir(dataDir);
});

describe("worker processes (WORKERS=2, every role)", () => {
  it("serves pages, the API and MCP from two workers; a worker that dies is replaced; usage is exact; SIGTERM ends it all", async () => {
    app = await startAppProcess(
      {
        WORKERS: "2",
        DATABASE_URL: db.url,
        DATA_DIR: dataDir,
        PACKAGES_DIR: TEST_PACKAGES_DIR,
        GIT_ALLOW_FILE: "on",
        AUTH_RATE_LIMIT: "off",
        USAGE_FLUSH_MS: "100",
      },
      90_000,
    );
    const primary = app.child.pid!;
    await expect.poll(() => workersOf(primary).length, { timeout: 20_000 }).toBe(2);

    const key = await accountWithKey(app, "wendy@example.com");
    const call = (p: string, body?: unknown) =>
      fetch(`${app!.url}${p}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", connection: "close" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const reg = await call("/api/servers", {
      qualifiedName: "wendy/fixture",
      displayName: "Fixture",
      description: "d",
      keywords: [],
      connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
    });
    expect(reg.status, await reg.clone().text()).toBe(201);
    expect((await call("/api/deploy/wendy/fixture", { repositoryUrl: repo.url, env: {} })).status).toBe(202);
    let d: DeploymentView | undefined;
    for (
      const deadline = Date.now() + 60_000;
      Date.now() < deadline && d?.status !== "running";
      await new Promise((r) => setTimeout(r, 200))
    ) {
      [d] = (await (await call("/api/deployments")).json()) as DeploymentView[];
    }
    expect(d?.status, app.output()).toBe("running");
    const url = d!.url.replace("localhost", "127.0.0.1");
    const usage = async () =>
      Number(
        (await db.database.pool.query<{ n: string }>("select use_count::text as n from servers where qualified_name = 'wendy/fixture'"))
          .rows[0]!.n,
      );
    const before = await usage();

    // Six clients, each on its own connections: the workers take turns, the sessions live with the runner.
    for (let c = 0; c < 6; c++) {
      const client = await sdkClient(url, key);
      for (let i = 0; i < 3; i++) expect(textOf(await client.callTool({ name: "add", arguments: { a: c, b: i } }))).toBe(String(c + i));
      await client.close();
    }
    // 6 initializes + 18 calls
    await expect.poll(usage, { timeout: 10_000 }).toBe(before + 24);

    // A worker killed outright is replaced, and MCP keeps working meanwhile and after.
    const [victim] = workersOf(primary);
    process.kill(victim!, "SIGKILL");
    await expect.poll(() => workersOf(primary).filter((p) => p !== victim).length, { timeout: 20_000 }).toBe(2);
    const after = await sdkClient(url, key);
    expect(textOf(await after.callTool({ name: "echo", arguments: { message: "still here" } }))).toContain("still here");
    await after.close();

    // SIGTERM to the primary: workers and the hosted server stop, the process exits cleanly, the deployment is kept.
    const workers = workersOf(primary);
    expect(await app.stop("SIGTERM")).toBe(0);
    for (const w of workers) expect(readCmd(w)).toBe("");
    expect((await db.database.pool.query("select status from deployments")).rows).toHaveLength(1);
  }, 240_000);
});
