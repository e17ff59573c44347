import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { addCatalogEntry, waitForStatus } from "~support/deployments.js";
import { newApiKey, sdkClient, textOf } from "~support/gateway.js";
import { diskLimitNotice, memoryLimitReason } from "./index.js";
import { PY_FIXTURE, pythonIndexUnavailable, startPythonIndex, type PythonIndex } from "~support/python-index.js";

// The sandbox's guarantees hold for Python as for Node.js: a hostile package's build (an sdist's
// backend runs package code at install time) and a running Python server try the ways out the
// threat model names (docs/hosting.md), and fail. The install runs in the platform's install
// sandbox as its installer uid; the server as the deployment's own uid, with the shared
// environment of its release read-only.

const ROOT = process.getuid?.() === 0;
const why = ROOT ? await pythonIndexUnavailable() : "needs a root platform (own uids, cgroups and volumes)";
const HOSTILE = "switchboard-pyhostile";
const DEEP = "switchboard-pydeep";

/** A build backend that buries the install's disk watch in folders nested far deeper than any install makes, then waits to be watched. */
const deepBackend = `import os, time
import backend as _real
from backend import get_requires_for_build_sdist, get_requires_for_build_wheel, build_sdist  # noqa: F401


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    os.makedirs(os.environ["HOME"], exist_ok=True)
    os.chdir(os.environ["HOME"])
    for _ in range(400):
        os.mkdir("d")
        os.chdir("d")
    time.sleep(30)
    return _real.build_wheel(wheel_directory, config_settings, metadata_directory)
`;

let t: TestApp;
let index: PythonIndex;
let packagesDir: string;
let dataDir: string;
let users = 0;

/** This machine's own IPv4 addresses (not loopback). */
const hostV4 = () =>
  Object.values(os.networkInterfaces()).flatMap((l) => (l ?? []).filter((x) => x.family === "IPv4" && !x.internal).map((x) => x.address));

const hostileBackend = (
  secret: string,
  marker: string,
  targets: Array<[string, number]>,
) => `"""A build backend that attacks the install: it runs inside pip's build of this sdist."""
import json, os, socket
import backend as _real
from backend import get_requires_for_build_sdist, get_requires_for_build_wheel, build_sdist  # noqa: F401


def _try(f):
    try:
        return f()
    except OSError as e:
        return "ERR " + (e.strerror or type(e).__name__)


def _connect(host, port):
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((host, port))
        return "connected"
    except OSError as e:
        return "ERR " + (e.strerror or type(e).__name__)
    finally:
        s.close()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    report = {
        "uid": os.getuid(),
        "secret": _try(lambda: open(${JSON.stringify(secret)}).read()),
        "marker": _try(lambda: open(${JSON.stringify(marker)}, "w").write("pwned")),
        "connect": {h: _connect(h, p) for h, p in ${JSON.stringify(targets)}},
        "rootHome": _try(lambda: os.listdir("/root")),
        "shadow": _try(lambda: open("/etc/shadow").read()),
    }
    with open(os.path.join(_real.ROOT, "pyfixture", "build_report.py"), "w") as f:
        # A JSON string literal is a Python one too: the test reads it back with JSON.parse.
        f.write("REPORT = " + json.dumps(json.dumps(report)) + "\\n")
    return _real.build_wheel(wheel_directory, config_settings, metadata_directory)
`;

beforeAll(async () => {
  if (why) return;
  packagesDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-pyhostile-packages-"));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-pyhostile-"));
  const port = await freePort();
  const address = "198.51.100.10";
  const indexPort = 7782;
  t = await createTestApp({
    PYPI_INDEX_URL: `http://${address}:${indexPort}/simple/`,
    PACKAGES_DIR: packagesDir,
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RESTART_BACKOFF_MS: "600000",
    DEPLOY_START_TIMEOUT_MS: "20000",
    DEPLOY_MEMORY_MB: "160",
    DEPLOY_DISK_MB: "64",
  });
  await t.listen();
  const pgPort = Number(new URL(t.db.url).port || 5432);
  // The platform database from inside the build: on loopback (the build's own), through slirp's
  // gateway (the host's loopback), and on each of the host's own addresses.
  const targets: Array<[string, number]> = [
    ["127.0.0.1", pgPort],
    ["10.0.2.2", pgPort],
    ...hostV4().map((a): [string, number] => [a, pgPort]),
  ];
  const pyproject = (
    await fs.readFile(new URL("../../../../../tests/fixtures/python-server/pyproject.toml", import.meta.url), "utf8")
  ).replace('build-backend = "backend"', 'build-backend = "hostile"');
  index = await startPythonIndex({
    address,
    port: indexPort,
    projects: [
      { releases: { "1.0.0": ["wheel"] } },
      {
        name: DEEP,
        releases: { "1.0.0": ["sdist"] },
        files: {
          "_build/deep.py": deepBackend,
          "pyproject.toml": pyproject.replace('build-backend = "hostile"', 'build-backend = "deep"'),
        },
      },
      {
        name: HOSTILE,
        releases: { "6.6.6": ["sdist"] },
        files: {
          "_build/hostile.py": hostileBackend(path.join(dataDir, "secrets-key"), path.join(dataDir, "pwned"), targets),
          "pyproject.toml": pyproject,
        },
      },
    ],
  });
  await addCatalogEntry(t, "pyfixture", `uvx ${PY_FIXTURE}==1.0.0`);
  await addCatalogEntry(t, "pyhostile", `uvx --from ${HOSTILE}==6.6.6 ${PY_FIXTURE}`);
  await addCatalogEntry(t, "pydeep", `uvx --from ${DEEP}==1.0.0 ${PY_FIXTURE}`);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await index?.close();
  for (const d of [packagesDir, dataDir]) if (d) await fs.rm(d, { recursive: true, force: true });
});

async function deployed(
  id: string,
): Promise<{ c: Client; d: DeploymentView; call: <T>(tool: string, args?: Record<string, unknown>) => Promise<T> }> {
  const c = await signedInUser(t, `pyeve${++users}@example.com`);
  const key = await newApiKey(c, "hostile");
  expect((await c.post(`/api/deploy/${id}`, { env: {} })).status).toBe(202);
  const d = await waitForStatus(c, id, "running", 180_000);
  const client = await sdkClient(d.url, key);
  return {
    c,
    d,
    call: async <T>(tool: string, args: Record<string, unknown> = {}) =>
      JSON.parse(textOf(await client.callTool({ name: tool, arguments: args }))) as T,
  };
}

describe.skipIf(why)(`a hostile Python package and server${why ? ` (skipped: ${why})` : ""}`, () => {
  it("an sdist's build runs sandboxed as the installer's uid: no platform secret, no host write, no platform database, no host home", async () => {
    const { c, d } = await deployed("pyhostile");
    const site = path.join(packagesDir, "pypi", `${HOSTILE}@6.6.6`, "lib");
    const pyDir = (await fs.readdir(site)).find((v) => v.startsWith("python3"))!;
    const text = readFileSync(path.join(site, pyDir, "site-packages", "pyfixture", "build_report.py"), "utf8");
    const report = JSON.parse(JSON.parse(/^REPORT = (.*)$/m.exec(text)![1]!) as string) as Record<string, unknown>;
    expect(report.uid).toBe(Number(t.config.SANDBOX_UID_BASE));
    expect(report.secret).toMatch(/^ERR /);
    expect(report.marker).toMatch(/^ERR /);
    expect(existsSync(path.join(dataDir, "pwned"))).toBe(false);
    const connect = report.connect as Record<string, string>;
    expect(Object.keys(connect).length).toBeGreaterThanOrEqual(3);
    for (const [host, result] of Object.entries(connect))
      expect([host, result]).toEqual([host, host === "127.0.0.1" ? "ERR Connection refused" : "ERR Permission denied"]);
    expect(report.rootHome).toMatch(/^ERR /);
    expect(report.shadow).toMatch(/^ERR /);
    expect(text).not.toContain(t.secret.slice(0, 12));
    expect((await c.del(`/api/deployments/${d.id}`)).status).toBe(200);
  }, 240_000);

  it("the server runs as its own unprivileged uid, without capabilities, under seccomp; its release's shared environment is read-only to it", async () => {
    const a = await deployed("pyfixture");
    const b = await deployed("pyfixture");
    const me = await a.call<{ uid: number; capEff: string; noNewPrivs: string; seccomp: string; prefix: string }>("whoami");
    const other = await b.call<{ uid: number; prefix: string }>("whoami");
    expect(me.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(other.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(other.uid).not.toBe(me.uid);
    expect(me).toMatchObject({ capEff: "0000000000000000", noNewPrivs: "1", seccomp: "2" });
    // Both run the same environment: a tenant that could change it would run code in the other.
    expect(other.prefix).toBe(me.prefix);
    const server = path.join(
      me.prefix,
      "lib",
      (await fs.readdir(path.join(me.prefix, "lib")))[0]!,
      "site-packages",
      "pyfixture",
      "server.py",
    );
    const before = readFileSync(server, "utf8");
    expect(await a.call("write_file", { path: server })).toEqual({ error: "Read-only file system" });
    expect(await a.call("write_file", { path: path.join(me.prefix, "bin", "evil") })).toEqual({ error: "Read-only file system" });
    expect(readFileSync(server, "utf8")).toBe(before);
    // Its own folder is writable.
    expect(await a.call("write_file", { path: "mine.txt" })).toEqual({ written: true });
  }, 240_000);

  it("reads no platform file and no other deployment's folder, sees no host process, and reaches no host address", async () => {
    const a = await deployed("pyfixture");
    const b = await deployed("pyfixture");
    const secret = path.join(dataDir, "secrets-key");
    expect(readFileSync(secret, "utf8").length).toBeGreaterThan(0);
    expect(await a.call("read_file", { path: secret })).toEqual({ error: "No such file or directory" });
    expect(await a.call("read_file", { path: "/etc/shadow" })).toEqual({ error: "No such file or directory" });
    expect(await a.call("list_dir", { path: path.join(dataDir, "deployments", b.d.id) })).toEqual({ error: "No such file or directory" });
    const procs = await a.call<{ entries: string[] }>("list_dir", { path: "/proc" });
    expect(procs.entries.filter((e) => /^\d+$/.test(e)).length).toBeLessThan(5);
    const pgPort = Number(new URL(t.db.url).port || 5432);
    // 127.0.0.1 is its own namespace's loopback, where nothing listens; the host's is not reachable.
    expect((await a.call<{ result: string }>("connect", { host: "127.0.0.1", port: pgPort })).result).toBe("Connection refused");
    const targets: Array<[string, number]> = [["10.0.2.2", pgPort], ...hostV4().map((a): [string, number] => [a, pgPort])];
    for (const [host, port] of targets)
      expect([host, (await a.call<{ result: string }>("connect", { host, port })).result]).toEqual([host, "Permission denied"]);
  }, 240_000);

  it("is held to its memory and disk limits, and the owner is told", async () => {
    const disk = await deployed("pyfixture");
    const filled = await disk.call<{ writtenMb: number; error: string | null }>("fill_disk", { mb: 100 });
    expect(filled.error).toBe("No space left on device");
    expect(filled.writtenMb).toBeLessThan(64);
    // The platform notices the full volume on its own round and tells the owner in the output.
    let output = "";
    for (
      const deadline = Date.now() + 20_000;
      !output.includes(diskLimitNotice(64)) && Date.now() < deadline;
      await new Promise((r) => setTimeout(r, 250))
    ) {
      output = ((await (await disk.c.get(`/api/deployments/${disk.d.id}/logs`)).json()) as { lines: string[] }).lines.join("\n");
    }
    expect(output).toContain(diskLimitNotice(64));
    expect((await disk.c.del(`/api/deployments/${disk.d.id}`)).status).toBe(200);

    const memory = await deployed("pyfixture");
    await memory.call("hold_memory", { mb: 400 }).catch(() => {});
    const stopped = await waitForStatus(memory.c, "pyfixture", ["crashed", "crash_looping"], 60_000);
    expect(stopped.status_detail).toMatch(new RegExp(`^${memoryLimitReason(160)}`));
  }, 240_000);

  it("a build that nests folders deeper than any install is stopped while it runs, and nothing of it is left", async () => {
    const c = await signedInUser(t, `pyeve${++users}@example.com`);
    const started = Date.now();
    expect((await c.post("/api/deploy/pydeep", { env: {} })).status).toBe(202);
    const failed = await waitForStatus(c, "pydeep", ["failed", "running"], 120_000);
    expect(failed.status).toBe("failed");
    expect(failed.status_detail).toContain(
      `The PyPI package ${DEEP}==1.0.0 was stopped while installing: it made folders nested more than 256 deep`,
    );
    // Stopped by the watch, not by the build's own 30 s sleep ending.
    expect(Date.now() - started).toBeLessThan(25_000);
    expect((await fs.readdir(path.join(packagesDir, "pypi"))).filter((f) => f.startsWith(".tmp-") || f.startsWith(`${DEEP}@`))).toEqual([]);
  }, 180_000);
});
