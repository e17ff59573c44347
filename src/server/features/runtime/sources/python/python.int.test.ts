import { existsSync, readdirSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { addCatalogEntry, alive, registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { newApiKey, sdkClient, textOf } from "~support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import { until } from "~support/wait.js";
import { PY_FIXTURE, pythonIndexUnavailable, startPythonIndex, type PythonIndex } from "~support/python-index.js";
import { UVX_TEXT } from "./uvx.js";

// Python servers deployed through the API like npm ones: a PyPI package (uvx commands) from a
// test index of the test's own (the fixture server built into a wheel and an sdist), and a Python
// repository from git. Calls go through the gateway with the MCP SDK's client.

const why = await pythonIndexUnavailable();
let t: TestApp;
let index: PythonIndex;
let packagesDir: string;
let repo: FixtureRepo;
let users = 0;

beforeAll(async () => {
  if (why) return;
  index = await startPythonIndex({ address: "198.51.100.9", port: 7781 });
  packagesDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-pypi-packages-"));
  const port = await freePort();
  t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    PYPI_INDEX_URL: index.url,
    PACKAGES_DIR: packagesDir,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RESTART_BACKOFF_MS: "200",
    DEPLOY_START_TIMEOUT_MS: "20000",
    ADMIN_EMAILS: "admin@example.com",
  });
  await t.listen();
  repo = await createFixtureRepo({ fixture: "python-server" });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await index?.close();
  await repo?.cleanup();
  if (packagesDir) await fs.rm(packagesDir, { recursive: true, force: true });
});

async function user(): Promise<{ c: Client; key: string; name: string }> {
  const name = `py${++users}`;
  const c = await signedInUser(t, `${name}@example.com`);
  return { c, key: await newApiKey(c, "python"), name };
}

async function deploy(c: Client, id: string, body: Record<string, unknown>): Promise<DeploymentView> {
  const r = await c.post(`/api/deploy/${id}`, { env: {}, ...body });
  expect(r.status, await r.clone().text()).toBe(202);
  return ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
}

type Whoami = { uid: number; python: string; executable: string; prefix: string; version: string; cwd: string; argv0: string };

describe.skipIf(why)(`Python servers${why ? ` (skipped: ${why})` : ""}`, () => {
  it("deploys a uvx command pinned to a release (a wheel): its tools through the gateway, the owner's keys, a restart after a crash, stop", async () => {
    await addCatalogEntry(t, "pyfixture", `uvx ${PY_FIXTURE}==1.0.0`, [
      { key: "Greeting", env_var: "GREETING", description: "What to say" },
    ]);
    const { c, key } = await user();
    const missing = await c.post("/api/deploy/pyfixture", { env: {} });
    expect(missing.status).toBe(400);
    const d = await deploy(c, "pyfixture", { env: { GREETING: "hello from a key" } });
    expect(d.source).toBe(`pypi:${PY_FIXTURE}==1.0.0`);
    const running = await waitForStatus(c, "pyfixture", "running", 180_000);

    const client = await sdkClient(running.url, key);
    expect(client.getServerVersion()).toMatchObject({ name: PY_FIXTURE, version: "1.0.0" });
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toEqual(expect.arrayContaining(["echo", "add", "env", "whoami"]));
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    expect(textOf(await client.callTool({ name: "env", arguments: { name: "GREETING" } }))).toBe("hello from a key");
    const me = JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} }))) as Whoami;
    // The shared environment of that release, run by the deployment's own unprivileged uid.
    const venv = path.join(packagesDir, "pypi", `${PY_FIXTURE}@1.0.0`);
    expect(me.prefix).toBe(venv);
    expect(me.python).toMatch(/^3\.(1\d|[2-9]\d)\./);
    expect(me.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(existsSync(path.join(venv, ".complete"))).toBe(true);
    expect(readdirSync(path.join(packagesDir, "pypi")).filter((f) => f.includes(".tmp-"))).toEqual([]);
    // Installed by the platform's installer uid, never root.
    expect(statSync(path.join(venv, "pyvenv.cfg")).uid).toBe(Number(t.config.SANDBOX_UID_BASE));

    const logs = (await (await c.get(`/api/deployments/${d.id}/logs`)).json()) as { lines: string[] };
    expect(logs.lines.join("\n")).toContain(`${PY_FIXTURE} 1.0.0 on Python`);
    expect(logs.lines.join("\n")).not.toContain("hello from a key");

    await client.callTool({ name: "crash", arguments: {} }).catch(() => {});
    await client.close();
    const crashed = await waitForStatus(c, "pyfixture", ["crashed", "crash_looping"], 30_000);
    expect(crashed.status_detail).toContain("Exited with code 3");
    const again = await waitForStatus(c, "pyfixture", "running", 60_000);
    expect(again.restarts).toBeGreaterThanOrEqual(1);
    const after = await sdkClient(again.url, key);
    expect(textOf(await after.callTool({ name: "echo", arguments: { text: "back" } }))).toBe("back");
    await after.close();

    const pid = ((await t.db.database.pool.query("select pid from deployments where id = $1", [d.id])).rows[0] as { pid: number }).pid;
    expect((await c.del(`/api/deployments/${d.id}`)).status).toBe(200);
    expect(alive(pid)).toBe(false);
  }, 240_000);

  it("an unpinned command installs the index's newest release, built from its sdist in the sandbox; --from runs another console script; a redeploy reuses the environment", async () => {
    await addCatalogEntry(t, "pyfixture-alt", `uvx --from ${PY_FIXTURE} pyfixture-alt`);
    const { c, key } = await user();
    const d = await deploy(c, "pyfixture-alt", {});
    expect(d.source).toBe(`pypi:${PY_FIXTURE} (pyfixture-alt)`);
    const running = await waitForStatus(c, "pyfixture-alt", "running", 180_000);
    const client = await sdkClient(running.url, key);
    expect(client.getServerVersion()).toMatchObject({ name: `${PY_FIXTURE}-alt`, version: "2.0.0" });
    const me = JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} }))) as Whoami;
    expect(me.prefix).toBe(path.join(packagesDir, "pypi", `${PY_FIXTURE}@2.0.0`));
    expect(me.argv0).toMatch(/pyfixture-alt$/);
    await client.close();
    // 2.0.0 exists only as an sdist: it was built, by the installer's uid.
    const installed = path.join(packagesDir, "pypi", `${PY_FIXTURE}@2.0.0`, "bin", "pyfixture-alt");
    expect(statSync(installed).uid).toBe(Number(t.config.SANDBOX_UID_BASE));

    expect((await c.del(`/api/deployments/${d.id}`)).status).toBe(200);
    const installedAt = statSync(path.join(packagesDir, "pypi", `${PY_FIXTURE}@2.0.0`, ".complete")).mtimeMs;
    const started = Date.now();
    await deploy(c, "pyfixture-alt", {});
    await waitForStatus(c, "pyfixture-alt", "running", 60_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(statSync(path.join(packagesDir, "pypi", `${PY_FIXTURE}@2.0.0`, ".complete")).mtimeMs).toBe(installedAt);
  }, 240_000);

  it("after a restart, an unpinned redeploy asks the index: the same release is not reinstalled, a new one is installed, and with the index unreachable the newest installed one runs", async () => {
    const complete = (v: string) => path.join(packagesDir, "pypi", `${PY_FIXTURE}@${v}`, ".complete");
    const installedAt = statSync(complete("2.0.0")).mtimeMs;
    const deployOnFreshPlatform = async (indexUrl: string, before?: () => Promise<void>) => {
      const port = await freePort();
      const again = await createTestApp({
        PYPI_INDEX_URL: indexUrl,
        PACKAGES_DIR: packagesDir,
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        DEPLOY_START_TIMEOUT_MS: "20000",
      });
      try {
        await again.listen();
        await before?.();
        await addCatalogEntry(again, "pyfixture-unpinned", `uvx ${PY_FIXTURE}`);
        const c = await signedInUser(again, "restart@example.com");
        const key = await newApiKey(c, "restart");
        const started = Date.now();
        expect((await c.post("/api/deploy/pyfixture-unpinned", { env: {} })).status).toBe(202);
        const running = await waitForStatus(c, "pyfixture-unpinned", ["running", "failed"], 120_000);
        expect(running.status_detail ?? "").toBe("");
        const client = await sdkClient(running.url, key);
        const version = client.getServerVersion()?.version;
        await client.close();
        return { version, ms: Date.now() - started };
      } finally {
        await again.close();
      }
    };
    const same = await deployOnFreshPlatform(index.url);
    expect(same.version).toBe("2.0.0");
    expect(same.ms).toBeLessThan(10_000);
    expect(statSync(complete("2.0.0")).mtimeMs).toBe(installedAt);
    // A release published meanwhile is what "newest" means now.
    const fresh = await deployOnFreshPlatform(index.url, () => index.publish({ releases: { "3.0.0": ["wheel"] } }));
    expect(fresh.version).toBe("3.0.0");
    // A dead index (the test host answers no connection on that port): the newest installed release.
    const offline = await deployOnFreshPlatform(index.url.replace(":7781/", ":7799/"));
    expect(offline.version).toBe("3.0.0");
    // A newest release that cannot be built: the newest installed one runs rather than nothing.
    const pyproject = (
      await fs.readFile(new URL("../../../../../../tests/fixtures/python-server/pyproject.toml", import.meta.url), "utf8")
    ).replace('build-backend = "backend"', 'build-backend = "broken"');
    const broken =
      "from backend import build_sdist, get_requires_for_build_sdist, get_requires_for_build_wheel  # noqa: F401\n\n\ndef build_wheel(*args, **kwargs):\n    raise RuntimeError('this release cannot be built')\n";
    const unbuildable = await deployOnFreshPlatform(index.url, () =>
      index.publish({ releases: { "4.0.0": ["sdist"] }, files: { "_build/broken.py": broken, "pyproject.toml": pyproject } }),
    );
    expect(unbuildable.version).toBe("3.0.0");
  }, 240_000);

  it("a console script the package does not have fails with the ones it has", async () => {
    await addCatalogEntry(t, "pyfixture-nope", `uvx --from ${PY_FIXTURE}==1.0.0 nope`);
    const { c } = await user();
    await deploy(c, "pyfixture-nope", {});
    const failed = await waitForStatus(c, "pyfixture-nope", ["failed", "running"], 120_000);
    expect(failed.status).toBe("failed");
    expect(failed.status_detail).toContain(
      `The PyPI package ${PY_FIXTURE} has no command named nope. It provides: ${PY_FIXTURE}, pyfixture-alt.`,
    );
  }, 180_000);

  it("only a declared console script runs: pip, which sits in the same folder, is not one", async () => {
    await addCatalogEntry(t, "pyfixture-pip", `uvx --from ${PY_FIXTURE}==1.0.0 pip`);
    const { c } = await user();
    await deploy(c, "pyfixture-pip", {});
    const failed = await waitForStatus(c, "pyfixture-pip", ["failed", "running"], 120_000);
    expect(failed.status).toBe("failed");
    expect(failed.status_detail).toContain(`The PyPI package ${PY_FIXTURE} has no command named pip.`);
  }, 180_000);

  it("a release the index does not have fails with pip's own words", async () => {
    await addCatalogEntry(t, "pyfixture-missing", `uvx ${PY_FIXTURE}==9.9.9`);
    const { c } = await user();
    await deploy(c, "pyfixture-missing", {});
    const failed = await waitForStatus(c, "pyfixture-missing", ["failed", "running"], 120_000);
    expect(failed.status).toBe("failed");
    expect(failed.status_detail).toMatch(/^pip install of the PyPI package switchboard-pyfixture==9\.9\.9 failed/);
    expect(failed.status_detail).toMatch(/No matching distribution found/);
  }, 180_000);

  it.each([
    [`uvx --index-url https://evil.example/simple ${PY_FIXTURE}`, UVX_TEXT.forbiddenOption("--index-url")],
    [`uvx ${PY_FIXTURE} --extra-index-url=https://evil.example/simple`, UVX_TEXT.forbiddenOption("--extra-index-url")],
    [`uvx --find-links /tmp ${PY_FIXTURE}`, UVX_TEXT.forbiddenOption("--find-links")],
    ["uvx git+https://github.com/evil/pkg", UVX_TEXT.notFromIndex("git+https://github.com/evil/pkg")],
    ["uvx ./evil", UVX_TEXT.notFromIndex("./evil")],
    ["uvx --from https://evil.example/x.whl x", UVX_TEXT.notFromIndex("https://evil.example/x.whl")],
    [`uvx ${PY_FIXTURE}; id`, UVX_TEXT.shell],
  ])("refuses %s before anything runs", async (command, message) => {
    const { c, name } = await user();
    await registerOwnedServer(c, `${name}/evil`, "Evil");
    const r = await c.post(`/api/deploy/${name}/evil`, { env: {}, npx_command: command });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe(message);
    expect(((await (await c.get(`/api/deployments/server/${name}/evil`)).json()) as { deployments: unknown[] }).deployments).toEqual([]);
  });

  it("deploys a Python repository: its project installed into its own environment, its console script run; or the module python -m names", async () => {
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/pyrepo`, "Python repo");
    const d = await deploy(c, `${name}/pyrepo`, { repositoryUrl: repo.url });
    const running = await waitForStatus(c, `${name}/pyrepo`, ["running", "failed"], 180_000);
    expect(running.status_detail ?? "").toBe("");
    expect(running.status).toBe("running");
    const client = await sdkClient(running.url, key);
    expect(client.getServerVersion()).toMatchObject({ name: PY_FIXTURE, version: "1.0.0" });
    const me = JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} }))) as Whoami;
    const workDir = path.join(t.config.DATA_DIR, "deployments", d.id);
    expect(me.prefix).toBe(path.join(workDir, ".venv"));
    expect(me.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    await client.close();
    expect((await c.del(`/api/deployments/${d.id}`)).status).toBe(200);

    await registerOwnedServer(c, `${name}/pymodule`, "Python module");
    await deploy(c, `${name}/pymodule`, { repositoryUrl: repo.url, npx_command: "python -m pyfixture" });
    const viaModule = await waitForStatus(c, `${name}/pymodule`, ["running", "failed"], 180_000);
    expect(viaModule.status_detail ?? "").toBe("");
    const m = await sdkClient(viaModule.url, key);
    expect(textOf(await m.callTool({ name: "echo", arguments: { text: "module" } }))).toBe("module");
    await m.close();
    expect((await c.del(`/api/deployments/${viaModule.id}`)).status).toBe(200);

    // No project at all: its requirements installed, the module run from the checkout (a new
    // user: a Free plan deploys 3 times a month).
    const other = await user();
    const plain = await createFixtureRepo({
      fixture: "python-server",
      remove: ["pyproject.toml", "_build"],
      files: { "requirements.txt": "# the standard library is enough\n" },
    });
    try {
      const qn = `${other.name}/pyplain`;
      await registerOwnedServer(other.c, qn, "Python checkout");
      await deploy(other.c, qn, { repositoryUrl: plain.url, npx_command: "python -m pyfixture" });
      const fromCheckout = await waitForStatus(other.c, qn, ["running", "failed"], 180_000);
      expect(fromCheckout.status_detail ?? "").toBe("");
      const p = await sdkClient(fromCheckout.url, other.key);
      expect(p.getServerVersion()).toMatchObject({ name: PY_FIXTURE, version: "source" });
      await p.close();
      expect((await other.c.del(`/api/deployments/${fromCheckout.id}`)).status).toBe(200);
      // Without python -m there is nothing to run, and it says how to name it.
      await deploy(other.c, qn, { repositoryUrl: plain.url });
      const failed = await waitForStatus(other.c, qn, ["running", "failed"], 180_000);
      expect(failed.status_detail).toContain('give the command "python -m <module>"');
    } finally {
      await plain.cleanup();
    }
  }, 480_000);

  it("an admin's 'Check now' of a uvx entry installs it from the index, starts it with a placeholder key and records that it works", async () => {
    await addCatalogEntry(t, "pycheck", `uvx ${PY_FIXTURE}==1.0.0`, [{ key: "Greeting", env_var: "GREETING", description: "What to say" }]);
    const admin = await signedInUser(t, "admin@example.com");
    const r = await admin.post("/api/admin/mcp-servers/pycheck/check");
    expect(r.status, await r.clone().text()).toBe(202);
    const outcome = async () =>
      (await t.db.database.pool.query("select outcome, outcome_tools from catalog_listings where server_id = 'pycheck'")).rows[0] as
        { outcome: string | null; outcome_tools: number | null } | undefined;
    const done = await until(outcome, (o) => o?.outcome != null, 180_000, 250);
    expect(done).toMatchObject({ outcome: "works" });
    expect(done!.outcome_tools).toBeGreaterThanOrEqual(4);
    expect(await (await t.app.request("/server/pycheck")).text()).toContain(`listed ${done!.outcome_tools} tools`);
  }, 240_000);
});
