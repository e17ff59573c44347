// Deploying through the API: from npm and from git, failures and restarts, the package cache.
// Isolation and refused input: deployments-isolation.int.test.ts; plan limits, account deletion and
// the sandbox policy: deployments-operators.int.test.ts.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerFixture, startDeploymentsApp, toolText as text, type DeploymentsApp } from "~support/deployments-app.js";
import { EVERYTHING, addCatalogEntry, alive, deploymentsOf, removeDataDir, waitForStatus } from "~support/deployments.js";
import type { FixtureRepo } from "~support/git-fixture.js";
import { DEPLOY_TEXT, type DeploymentView } from "~/shared/deployments.js";

let t: TestApp;
let repo: FixtureRepo;
let owner: Client & { id: string };
let deployFixture: DeploymentsApp["deployFixture"];
let app: DeploymentsApp | undefined;

beforeAll(async () => {
  app = await startDeploymentsApp();
  ({ t, repo, owner, deployFixture } = app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe("deploying from npm", () => {
  it("installs server-everything, reaches running, lists its tools, and stops", async () => {
    const dana = await signedInUser(t, "dana@example.com");
    const r = await dana.post("/api/deploy/everything", { env: {} });
    expect(r.status).toBe(202);
    const body = (await r.json()) as { success: boolean; message: string; deploymentInfo: DeploymentView };
    expect(body.success).toBe(true);
    expect(body.message).toBe(DEPLOY_TEXT.started);
    expect(body.deploymentInfo).toMatchObject({ server_id: "everything", status: "queued", host_port: 3000 });
    expect(body.deploymentInfo.url).toBe(`http://localhost:3000/${body.deploymentInfo.proxy_id}/mcp`);

    const running = await waitForStatus(dana, "everything", "running", 180_000);
    const client = t.runtime.runner.client(running.id)!;
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toContain("echo");
    expect(text(await client.callTool({ name: "echo", arguments: { message: "hi there" } }))).toContain("hi there");

    // Its owner sees the tools their deployment listed on the server page; everyone else only a
    // listing an admin approved (none yet: docs/product.md#trusted-listings).
    const own = await (await dana.get("/server/everything")).text();
    expect(own).toMatch(/>echo</);
    const page = await (await t.app.request("http://localhost:3000/server/everything")).text();
    expect(page).toContain("Tools");
    expect(page).not.toMatch(/>echo</);

    // GET /api/deployments lists it; another user sees nothing of it.
    expect(((await (await dana.get("/api/deployments")).json()) as DeploymentView[]).map((d) => d.id)).toEqual([running.id]);
    const { pid } = (await t.db.database.pool.query("select pid from deployments where id = $1", [running.id])).rows[0] as { pid: number };
    expect(alive(pid)).toBe(true);
    const stranger = await signedInUser(t, "stranger@example.com");
    expect((await stranger.del(`/api/deployments/${running.id}`)).status).toBe(404);
    expect((await stranger.get(`/api/deployments/${running.id}/logs`)).status).toBe(404);

    const stop = await dana.del(`/api/deployments/${running.id}`);
    expect(stop.status).toBe(200);
    expect(await stop.json()).toEqual({ success: true, message: DEPLOY_TEXT.stopped });
    expect(alive(pid)).toBe(false);
    expect(await deploymentsOf(dana, "everything")).toEqual([]);
  }, 240_000);

  it("a second deploy of the same version starts from the cache in well under 3 s", async () => {
    const erin = await signedInUser(t, "erin@example.com");
    const t0 = performance.now();
    await erin.post("/api/deploy/everything", { env: {} });
    const d = await waitForStatus(erin, "everything", "running", 30_000);
    expect(performance.now() - t0).toBeLessThan(3000);
    await erin.del(`/api/deployments/${d.id}`);
  }, 60_000);
});

describe("deploying from a git repository", () => {
  it("clones, installs and runs the fixture; it answers tools/list and tools/call", async () => {
    const d = await deployFixture(owner, "owner/fixture", { FIXTURE_TOKEN: "tok-abcdef-123456" });
    expect(d.source).toBe(repo.url);
    const running = await waitForStatus(owner, "owner/fixture", "running");
    const client = t.runtime.runner.client(running.id)!;
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual(expect.arrayContaining(["echo", "add", "read_file"]));
    expect(text(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } }))).toBe("42");
    // Its environment: its own secret, a minimal PATH/HOME, nothing of the platform's.
    const names = text(await client.callTool({ name: "list_env", arguments: {} })).split("\n");
    const expected = [
      "FIXTURE_TOKEN",
      "HOME",
      "PATH",
      ...(t.runtime.runner.sandbox.kind === "bwrap" ? ["PWD"] : []),
      ...(process.env.NODE_EXTRA_CA_CERTS ? ["NODE_EXTRA_CA_CERTS"] : []),
    ];
    expect(names.sort()).toEqual(expected.sort());
    expect(text(await client.callTool({ name: "get_env", arguments: { name: "FIXTURE_TOKEN" } }))).toBe("tok-abcdef-123456");
    // Total Deployments on the owned server's page counts real deploys.
    const page = await (await t.app.request("http://localhost:3000/server/owner/fixture")).text();
    expect(page).toMatch(/Total Deployments<\/dt><dd[^>]*>1</);
    expect(page).toMatch(/Status<\/dt><dd[^>]*>Deployed</);
    await owner.del(`/api/deployments/${running.id}`);
  }, 120_000);
});

describe("when things go wrong", () => {
  it("a server that exits at start fails with its exit code and last output, not a bare 'failed'", async () => {
    const c = await signedInUser(t, "fail@example.com");
    await registerFixture(c, "fail");
    await deployFixture(c, "fail/fixture", { FIXTURE_EXIT_ON_START: "5" });
    const d = await waitForStatus(c, "fail/fixture", "failed", 60_000);
    expect(d.exit_code).toBe(5);
    expect(d.status_detail).toContain("Exited with code 5");
    expect(d.status_detail).toContain("fixture refusing to start");
    // A failed deployment does not hold the plan's running slot: a new deploy replaces it.
    await deployFixture(c, "fail/fixture", {});
    expect(existsSync(`${t.config.DATA_DIR}/deployments/${d.id}`)).toBe(false);
    const again = await waitForStatus(c, "fail/fixture", "running", 60_000);
    await c.del(`/api/deployments/${again.id}`);
  }, 120_000);

  it("a crashing server is restarted with doubling back-off and marked crash-looping", async () => {
    const c = await signedInUser(t, "crash@example.com");
    await registerFixture(c, "crash");
    await deployFixture(c, "crash/fixture", { FIXTURE_CRASH_AFTER_MS: "300" });
    await waitForStatus(c, "crash/fixture", "running", 60_000);
    const crashed = await waitForStatus(c, "crash/fixture", "crashed", 30_000);
    expect(crashed.restarts).toBe(1);
    expect(crashed.status_detail).toMatch(/Exited with code 3; restarting in 200 ms/);
    // Back-off 200, 400, 800 ms: the 3rd crash in a row is crash-looping, still restarting after 800 ms.
    const looping = await waitForStatus(c, "crash/fixture", "crash_looping", 60_000);
    expect(looping.restarts).toBe(3);
    expect(looping.status_detail).toMatch(/crashed 3 times in a row; restarting in 800 ms/);
    const logs = (await (await c.get(`/api/deployments/${looping.id}/logs`)).json()) as { lines: string[] };
    expect(logs.lines.join("\n")).toContain("crash timer fired");
    await c.del(`/api/deployments/${looping.id}`);
  }, 120_000);
});

describe("the shared package cache", () => {
  it("does not keep a package that takes more than a deployment's disk limit, and says why", async () => {
    const packagesDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-small-cache-"));
    const small = await createTestApp({ DEPLOY_DISK_MB: "16", PACKAGES_DIR: packagesDir });
    try {
      await addCatalogEntry(small, "everything", `npx -y ${EVERYTHING}`);
      const c = await signedInUser(small, "big@example.com");
      expect((await c.post("/api/deploy/everything", { env: {} })).status).toBe(202);
      const d = await waitForStatus(c, "everything", "failed", 180_000);
      // Refused while it installs (it wrote more than twice the limit) or once installed, whichever comes first.
      expect(d.status_detail).toMatch(
        /^The npm package @modelcontextprotocol\/server-everything@\S+ (takes \d+ MB with its dependencies, more than|is larger than) the 16 MB a deployment may use/,
      );
      expect((await fs.readdir(packagesDir)).filter((f) => f.includes("server-everything"))).toEqual([]);
    } finally {
      await small.close();
      await removeDataDir(packagesDir);
    }
  }, 240_000);
});
