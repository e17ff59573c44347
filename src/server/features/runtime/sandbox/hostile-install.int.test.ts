import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, TEST_PACKAGES_DIR, type Client, type TestApp } from "~support/app.js";
import { addCatalogEntry, registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import { canCreateTestHosts, createTestHosts } from "~support/netns.js";
import type { DeploymentView } from "~/shared/deployments.js";

// A hostile repository attacks the install, before any server runs: its own npm configuration,
// dependencies that point at the host, links to the platform's secrets, a FIFO where the platform
// reads. Each is deployed through the API; none may run anything outside the tenant's sandbox,
// read a host file, or put a host file's content into a status text or the output.

const run = promisify(execFile);
const ROOT = process.getuid?.() === 0;

let t: TestApp;
let secret: string;
let users = 0;
const repos: FixtureRepo[] = [];

async function deployRepo(opts: Parameters<typeof createFixtureRepo>[0]): Promise<{ c: Client; d: DeploymentView; dir: string }> {
  const repo = await createFixtureRepo(opts);
  repos.push(repo);
  const name = `mallory${++users}`;
  const c = await signedInUser(t, `${name}@example.com`);
  await registerOwnedServer(c, `${name}/evil`, "Evil");
  const r = await c.post(`/api/deploy/${name}/evil`, { repositoryUrl: repo.url, env: {} });
  expect(r.status, await r.clone().text()).toBe(202);
  const d = ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
  return { c, d, dir: path.join(t.config.DATA_DIR, "deployments", d.id) };
}

async function failedWith(c: Client, d: DeploymentView): Promise<{ detail: string; output: string }> {
  const failed = await waitForStatus(c, d.server_id, ["failed", "running"], 120_000);
  expect(failed.status).toBe("failed");
  const logs = (await (await c.get(`/api/deployments/${d.id}/logs`)).json()) as { status_detail: string; lines: string[] };
  return { detail: failed.status_detail ?? "", output: `${logs.status_detail}\n${logs.lines.join("\n")}` };
}

const leaks = (text: string) => text.includes(secret) || text.includes(secret.slice(0, 8));

beforeAll(async () => {
  if (!ROOT) return;
  t = await createTestApp({ GIT_ALLOW_FILE: "on", DEPLOY_START_TIMEOUT_MS: "20000" });
  secret = readFileSync(path.join(t.config.DATA_DIR, "secrets-key"), "utf8").trim();
}, 120_000);
afterAll(async () => {
  await t?.close();
  for (const r of repos) await r.cleanup();
});

describe.skipIf(!ROOT)("a hostile repository (needs a root platform: own uids and volumes)", () => {
  it("its .npmrc 'git=' setting with a git dependency runs its script only inside its own sandbox, as its own uid", async () => {
    const hostMarker = path.join(t.config.DATA_DIR, "pwned");
    const { c, d, dir } = await deployRepo({
      files: {
        "package.json": JSON.stringify({
          name: "evil",
          version: "1.0.0",
          bin: "server.js",
          dependencies: { x: "git+https://git.example.org/example/x.git" },
        }),
        "package-lock.json": JSON.stringify({
          name: "evil",
          version: "1.0.0",
          lockfileVersion: 3,
          requires: true,
          packages: {
            "": { name: "evil", version: "1.0.0", dependencies: { x: "git+https://git.example.org/example/x.git" } },
            "node_modules/x": {
              version: "1.0.0",
              resolved: "git+ssh://git@git.example.org/example/x.git#0123456789abcdef0123456789abcdef01234567",
            },
          },
        }),
        ".npmrc": "git=./evil.sh\n",
        "evil.sh": `#!/bin/sh\necho "uid=$(id -u)" >> "$HOME/RAN"\ncat ${path.join(t.config.DATA_DIR, "secrets-key")} >> "$HOME/RAN" 2>&1\necho pwned > ${hostMarker} 2>> "$HOME/RAN"\nexit 1\n`,
      },
      executables: ["evil.sh"],
    });
    const { detail, output } = await failedWith(c, d);
    expect(detail).toMatch(/^npm ci failed/);
    // It ran (npm honoured the setting), but in the sandbox: not root, no platform file, no host write.
    const ran = readFileSync(path.join(dir, "RAN"), "utf8");
    const uid = Number(/uid=(\d+)/.exec(ran)?.[1]);
    expect(uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(leaks(ran)).toBe(false);
    expect(existsSync(hostMarker)).toBe(false);
    expect(leaks(output)).toBe(false);
  }, 180_000);

  it("a git+file: dependency on a repository of the host finds nothing (the https-only rule cannot be sidestepped)", async () => {
    const hostRepo = await fs.mkdtemp(path.join(os.tmpdir(), "host-secret-repo-"));
    try {
      const hostSecret = `HOST-ONLY-${Date.now()}`;
      await fs.writeFile(path.join(hostRepo, "package.json"), JSON.stringify({ name: "leak", version: "1.0.0" }));
      await fs.writeFile(path.join(hostRepo, "SECRET.txt"), hostSecret);
      const git = (...a: string[]) => run("git", ["-C", hostRepo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...a]);
      await git("init", "-q", "-b", "main");
      await git("add", "-A");
      await git("commit", "-q", "-m", "secret");
      // Readable by anyone on the host: only the sandbox's own view can keep it out.
      await fs.chmod(hostRepo, 0o755);
      const { c, d, dir } = await deployRepo({
        files: {
          "package.json": JSON.stringify({
            name: "evil",
            version: "1.0.0",
            bin: "server.js",
            dependencies: { leak: `git+file://${hostRepo}` },
          }),
        },
      });
      const { detail, output } = await failedWith(c, d);
      expect(detail).toMatch(/^npm install failed/);
      expect(output).not.toContain(hostSecret);
      expect(existsSync(path.join(dir, "app", "node_modules", "leak", "SECRET.txt"))).toBe(false);
    } finally {
      await fs.rm(hostRepo, { recursive: true, force: true });
    }
  }, 180_000);

  it.each([
    ["package.json", /package\.json is a symbolic link/],
    ["server.json", /server\.json is a symbolic link/],
  ])(
    "a %s that is a link to the platform's secret key is never read by the platform, and nothing of the secret reaches the owner",
    async (file, message) => {
      const { c, d } = await deployRepo({ symlinks: { [file]: path.join(t.config.DATA_DIR, "secrets-key") } });
      const { detail, output } = await failedWith(c, d);
      expect(detail).toMatch(message);
      expect(leaks(detail)).toBe(false);
      expect(leaks(output)).toBe(false);
    },
    180_000,
  );

  it("a build that swaps its own folder for a link to a host folder gets nothing of that folder read by the platform", async () => {
    const hostDir = await fs.mkdtemp(path.join(os.tmpdir(), "host-app-"));
    try {
      const marker = `HOST-APP-${Date.now()}`;
      await fs.writeFile(path.join(hostDir, "package.json"), JSON.stringify({ name: marker, bin: `${marker}.js` }));
      await fs.writeFile(
        path.join(hostDir, "server.json"),
        JSON.stringify({ packages: [{ packageArguments: [{ type: "positional", value: marker }] }] }),
      );
      const { c, d } = await deployRepo({
        files: {
          "package.json": JSON.stringify({ name: "evil", version: "1.0.0", bin: "server.js", scripts: { build: "node swap.cjs" } }),
          "swap.cjs": `const fs = require("fs"); fs.rmSync("../app", { recursive: true, force: true }); fs.symlinkSync(${JSON.stringify(hostDir)}, "../app");`,
        },
      });
      const { detail, output } = await failedWith(c, d);
      expect(detail).toMatch(/symbolic link/);
      expect(detail).not.toContain(marker);
      expect(output).not.toContain(marker);
    } finally {
      await fs.rm(hostDir, { recursive: true, force: true });
    }
  }, 180_000);

  it("Stop Server during a build kills the build before its directory and uid are given up", async () => {
    const marker = `build-${Date.now()}`;
    const { c, d, dir } = await deployRepo({
      files: {
        "package.json": JSON.stringify({
          name: "evil",
          version: "1.0.0",
          bin: "server.js",
          scripts: { build: `node -e "setTimeout(() => {}, 120000)" ${marker}` },
        }),
      },
    });
    const builds = () =>
      readdirSync("/proc").filter((p) => {
        try {
          return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
        } catch {
          return false;
        }
      });
    for (const deadline = Date.now() + 60_000; builds().length === 0; await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > deadline) throw new Error("the build never started");
    }
    const t0 = Date.now();
    expect((await c.del(`/api/deployments/${d.id}`)).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(builds()).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  }, 180_000);

  it("a registry package with a git dependency is refused by the platform's install: nothing it names is fetched or run", async () => {
    const why = await canCreateTestHosts();
    if (why) throw new Error(why);
    // A registry of the test's own on a public-looking test host (TEST-NET-2, routed to a local namespace).
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "test-registry-"));
    const [host, port] = ["198.51.100.8", 7780];
    await fs.mkdir(path.join(root, "build", "package"), { recursive: true });
    await fs.mkdir(path.join(root, "tarballs"));
    const manifest = {
      name: "hostile-pkg",
      version: "1.0.0",
      bin: "server.js",
      dependencies: { helper: "git+https://git.example.org/evil/helper.git" },
    };
    await fs.writeFile(path.join(root, "build", "package", "package.json"), JSON.stringify(manifest));
    await fs.writeFile(path.join(root, "build", "package", "server.js"), "#!/usr/bin/env node\n");
    await run("tar", ["-czf", path.join(root, "tarballs", "hostile-pkg-1.0.0.tgz"), "-C", path.join(root, "build"), "package"]);
    await fs.writeFile(
      path.join(root, "hostile-pkg"),
      JSON.stringify({
        name: "hostile-pkg",
        "dist-tags": { latest: "1.0.0" },
        versions: { "1.0.0": { ...manifest, dist: { tarball: `http://${host}:${port}/tarballs/hostile-pkg-1.0.0.tgz` } } },
      }),
    );
    const registry = await createTestHosts([host], port, { serveDir: root });
    const before = process.env.npm_config_registry;
    process.env.npm_config_registry = `http://${host}:${port}/`;
    try {
      await addCatalogEntry(t, "hostile-pkg", "npx -y hostile-pkg@1.0.0");
      const c = await signedInUser(t, `mallory${++users}@example.com`);
      expect((await c.post("/api/deploy/hostile-pkg", { env: {} })).status).toBe(202);
      const failed = await waitForStatus(c, "hostile-pkg", ["failed", "running"], 120_000);
      expect(failed.status).toBe("failed");
      // The registry was reached (the package's own metadata and tarball), its git dependency refused.
      expect(failed.status_detail).toMatch(/^npm install of hostile-pkg@1\.0\.0 failed/);
      expect(failed.status_detail).toMatch(/EALLOWGIT|"git" have been disabled/);
      expect((await fs.readdir(TEST_PACKAGES_DIR)).filter((f) => f.startsWith("hostile-pkg@") && !f.includes(".tmp-"))).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.npm_config_registry;
      else process.env.npm_config_registry = before;
      await registry.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  }, 180_000);

  it("a build that leaves a FIFO where the platform reads package.json cannot stall the platform", async () => {
    const { c, d } = await deployRepo({
      files: {
        "package.json": JSON.stringify({ name: "evil", version: "1.0.0", bin: "server.js", scripts: { build: "node fifo.cjs" } }),
        "fifo.cjs": `require("fs").rmSync("package.json"); require("child_process").execFileSync("mkfifo", ["package.json"]);`,
      },
    });
    const t0 = Date.now();
    const { detail } = await failedWith(c, d);
    expect(detail).toMatch(/package\.json is not a regular file/);
    expect(Date.now() - t0).toBeLessThan(60_000);
  }, 180_000);
});
