import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { newApiKey, sdkClient, textOf } from "~support/gateway.js";
import { cmdlinesHolding, hostSideOf } from "~support/hostile-server.js";
import {
  imageBuilder,
  imageToolsMissing,
  startHostileRegistry,
  startImageRegistry,
  type ImageBuilder,
  type ImageRegistry,
} from "~support/image-registry.js";
import { IMAGE_TEXT, imageArch } from "../sources/image/image-cache.js";
import { IMAGE_LIMITS } from "../sources/image/image-tree.js";
import { HOST_ENV } from "./host-process.js";

// Hostile container images (docs/hosting.md#host-processes): built by the test, served from a
// registry on a test host, deployed through the API. What an image's configuration says (its Env,
// command, working folder), what its layers hold (modes, a file bomb) and what its registry
// serves (manifests of any size) may steer nothing on the host: every process the platform starts
// there for a deployment runs with the platform's environment alone, and the image's variables
// reach only the server, inside its sandbox.

const run = promisify(execFile);
const why = await imageToolsMissing();
const cc = ["/usr/bin/cc", "/usr/bin/gcc"].find((p) => existsSync(p));
let t: TestApp;
let registry: ImageRegistry;
let hostile: { host: string; close(): Promise<void> } | undefined;
let images: ImageBuilder;
let packagesDir: string;
let markerDir: string;
let payload: string | undefined;
let users = 0;

/** A library whose constructor writes `<dir>/loaded-<comm>` into MARKER (the host's) and /data (a sandbox's), as whoever loads it. */
const PAYLOAD = `
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
static void mark(const char *dir) {
  char comm[32] = {0}, path[512], line[64];
  int f = open("/proc/self/comm", O_RDONLY);
  if (f >= 0) { ssize_t n = read(f, comm, sizeof comm - 1); close(f); if (n > 0 && comm[n - 1] == '\\n') comm[n - 1] = 0; }
  snprintf(path, sizeof path, "%s/loaded-%s", dir, comm);
  int o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (o < 0) return;
  int len = snprintf(line, sizeof line, "uid=%d pid=%d\\n", (int)getuid(), (int)getpid());
  if (write(o, line, len) < 0) {}
  close(o);
}
__attribute__((constructor)) static void loaded(void) { mark(MARKER); mark("/data"); }
unsigned int la_version(unsigned int v) { return v; }
`;

beforeAll(async () => {
  if (why) return;
  registry = await startImageRegistry({ address: "203.0.113.74", port: 7795 });
  images = await imageBuilder();
  await images.build("1");
  await registry.push(images.layout, "1", "fixture/node");
  hostile = await startHostileRegistry({ address: "203.0.113.75", port: 7796, layout: images.layout });
  packagesDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-hostile-images-"));
  markerDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-marker-"));
  await fs.chmod(markerDir, 0o1777); // anyone may write here: a payload run by any uid on the host would leave its mark
  if (cc) {
    const src = path.join(markerDir, "payload.c");
    await fs.writeFile(src, PAYLOAD);
    payload = path.join(markerDir, "libevil.so");
    await run(cc, ["-shared", "-fPIC", "-O1", `-DMARKER="${markerDir}"`, "-o", payload, src], { env: { PATH: "/usr/bin:/bin" } });
    await fs.rm(src);
  }
  const port = await freePort();
  t = await createTestApp({
    PACKAGES_DIR: packagesDir,
    IMAGE_INSECURE_REGISTRIES: `${registry.host},${hostile.host}`,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RESTART_BACKOFF_MS: "600000",
    DEPLOY_START_TIMEOUT_MS: "20000",
  });
  await t.listen();
}, 180_000);

afterAll(async () => {
  await t?.close();
  await registry?.close();
  await hostile?.close();
  await images?.close();
  for (const d of [packagesDir, markerDir]) if (d) await fs.rm(d, { recursive: true, force: true });
});

async function user(): Promise<{ c: Client; key: string; name: string }> {
  const name = `mal${++users}`;
  const c = await signedInUser(t, `${name}@example.com`);
  return { c, key: await newApiKey(c, "images"), name };
}

/** A new user deploys `command` as an owned server (Free runs one at a time); resolves once it reaches `want`. */
async function deploy(command: string, env: Record<string, string>, want: string): Promise<DeploymentView & { key: string; c: Client }> {
  const u = await user();
  await registerOwnedServer(u.c, `${u.name}/image`);
  const r = await u.c.post(`/api/deploy/${u.name}/image`, { npx_command: command, env });
  expect(r.status, await r.clone().text()).toBe(202);
  // Either end, so a deploy that ends the other way says why at once.
  const d = await waitForStatus(u.c, `${u.name}/image`, [want, want === "running" ? "failed" : "running"], 240_000);
  expect(d.status, d.status_detail ?? "").toBe(want);
  return { ...d, key: u.key, c: u.c };
}

const treeOf = (digest: string) => path.join(packagesDir, "images", `${digest.replace(":", "-")}-${imageArch()}`, "rootfs");
const images_ = () => fs.readdir(path.join(packagesDir, "images")).catch(() => [] as string[]);
const cached = async () => (await images_()).filter((d) => !d.startsWith("."));

/** The deployment's uid on the host (the sandbox maps it to itself), read by the server. */
async function uidOf(d: DeploymentView, key: string): Promise<number> {
  const client = await sdkClient(d.url, key);
  try {
    const status = textOf(await client.callTool({ name: "read_file", arguments: { path: "/proc/self/status" } }));
    return Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
  } finally {
    await client.close();
  }
}

/** The host-side processes of a running deployment: what they must include, each with nothing in its environment but HOST_ENV. */
function expectHostSideClean(uid: number, include: readonly string[], secrets: string[]) {
  const procs = hostSideOf(uid);
  for (const comm of include) expect(procs.map((p) => p.comm)).toContain(comm);
  for (const p of procs) expect([p.comm, p.environ]).toEqual([p.comm, Object.entries(HOST_ENV).map(([k, v]) => `${k}=${v}`)]);
  for (const s of secrets) expect(cmdlinesHolding(s)).toEqual([]);
}

describe.skipIf(why)(`Hostile container images${why ? ` (skipped: ${why})` : ""}`, () => {
  it.skipIf(!cc)(
    "an image's Env aimed at the host (loader, libc and tool variables to a library in another cached image) reaches only its own sandbox",
    async () => {
      // A carrier image, pulled first: its library then lies in the shared cache, world-readable.
      const plant = async (root: string) => {
        await fs.mkdir(path.join(root, "lib/evil/gconv"), { recursive: true });
        await fs.copyFile(payload!, path.join(root, "lib/evil/libevil.so"));
        await fs.writeFile(path.join(root, "lib/evil/gconv/gconv-modules"), "module INTERNAL EVIL// libevil 1\n");
        await fs.writeFile(path.join(root, "lib/evil/hosts"), "localhost 127.0.0.1\n");
      };
      await images.build("carrier", { change: plant });
      const carrierDigest = await registry.push(images.layout, "carrier", "fixture/carrier");
      await deploy(`docker run -i ${registry.host}/fixture/carrier:carrier`, {}, "running");
      const evil = path.join(treeOf(carrierDigest), "lib/evil");
      expect(readFileSync(path.join(evil, "libevil.so")).length).toBeGreaterThan(0);

      const aimed: Record<string, string> = {
        // Both: the carrier's library on the host's path, and the image's own inside.
        LD_PRELOAD: `${evil}/libevil.so:/lib/evil/libevil.so`,
        LD_AUDIT: `${evil}/libevil.so`,
        LD_LIBRARY_PATH: evil,
        GCONV_PATH: `${evil}/gconv`,
        GLIBC_TUNABLES: "glibc.malloc.check=3:glibc.malloc.mmap_threshold=4096",
        MALLOC_PERTURB_: "165",
        MALLOC_ARENA_MAX: "1",
        LOCPATH: evil,
        HOSTALIASES: `${evil}/hosts`,
        RES_OPTIONS: "ndots:15 attempts:5",
        TMPDIR: evil,
        TZ: `${evil}/hosts`,
        GIT_DIR: evil,
        GIT_CONFIG_GLOBAL: `${evil}/hosts`,
        npm_config_userconfig: `${evil}/hosts`,
        PIP_INDEX_URL: "http://203.0.113.9/simple/",
        BASH_ENV: `${evil}/hosts`,
        PYTHONPATH: evil,
      };
      await images.build("escape", { change: plant, config: Object.entries(aimed).flatMap(([k, v]) => ["--config.env", `${k}=${v}`]) });
      await registry.push(images.layout, "escape", "fixture/escape");
      const secret = `owner-secret-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const stdio = await deploy(`docker run -i -e API_KEY ${registry.host}/fixture/escape:escape`, { API_KEY: secret }, "running");
      // The same image speaking HTTP: its relay into the sandbox's network is a host process too.
      const web = await deploy(
        `docker run -p 18735 ${registry.host}/fixture/escape:escape`,
        { API_KEY: secret, FIXTURE_HTTP_PORT: "18735" },
        "running",
      );

      for (const [d, helpers] of [
        [stdio, ["bwrap", "slirp4netns"]],
        [web, ["bwrap", "slirp4netns", "socat"]],
      ] as const) {
        // Inside, the image's variables are the server's, as the image says.
        const client = await sdkClient(d.url, d.key);
        const env = async (n: string) => textOf(await client.callTool({ name: "get_env", arguments: { name: n } }));
        expect(await env("RES_OPTIONS")).toBe("ndots:15 attempts:5");
        expect(await env("GLIBC_TUNABLES")).toBe(aimed.GLIBC_TUNABLES);
        expect(await env("API_KEY")).toBe(secret);
        // The image's own library was loaded in its own sandbox (the variable works: the payload is live)...
        expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "/data/loaded-node" } }))).toMatch(/^uid=\d+/);
        expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
        await client.close();
        // ...and no host process ever ran it, nor anything else of the image's: each has the platform's environment alone,
        // and the owner's secret is in no command line of the machine.
        expectHostSideClean(await uidOf(d, d.key), helpers, [secret]);
      }
      expect((await fs.readdir(markerDir)).filter((f) => f.startsWith("loaded-"))).toEqual([]);
    },
    360_000,
  );

  it("an owner's keys named like loader, libc and tool variables: the reserved ones are refused, the others reach only the server", async () => {
    const u = await user();
    await registerOwnedServer(u.c, `${u.name}/keys`);
    for (const name of ["LD_PRELOAD", "LD_AUDIT", "NPM_CONFIG_USERCONFIG", "PIP_INDEX_URL", "BASH_ENV", "PATH", "NODE_OPTIONS"]) {
      const r = await u.c.post(`/api/deploy/${u.name}/keys`, {
        npx_command: `docker run -i ${registry.host}/fixture/node:1`,
        env: { [name]: "/x" },
      });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe(DEPLOY_TEXT.reservedEnv(name));
    }
    const keys = {
      GCONV_PATH: "/tmp/gconv",
      GLIBC_TUNABLES: "glibc.malloc.check=3",
      MALLOC_ARENA_MAX: "1",
      LOCPATH: "/tmp/locale",
      HOSTALIASES: "/tmp/hosts",
      RES_OPTIONS: "ndots:9",
      TZ: "/tmp/tz",
      GIT_DIR: "/tmp/git",
      GIT_SSH_COMMAND: "touch /tmp/pwned",
      SECRET_TOKEN: `key-secret-${Date.now()}`,
    };
    const d = await deploy(`docker run -i ${registry.host}/fixture/node:1`, keys, "running");
    const client = await sdkClient(d.url, d.key);
    for (const [k, v] of Object.entries(keys)) expect(textOf(await client.callTool({ name: "get_env", arguments: { name: k } }))).toBe(v);
    await client.close();
    expectHostSideClean(await uidOf(d, d.key), ["bwrap", "slirp4netns"], [keys.SECRET_TOKEN]);
  }, 240_000);

  it("refuses an image configuration that is not one a deployment takes, with why, before anything is unpacked", async () => {
    const refused: [string, (c: Record<string, unknown>) => void, string][] = [
      // A NUL would split one argument of bubblewrap's descriptor into several: a `--bind / /host` smuggled in a value.
      ["nul-env", (c) => (c.Env = ["PATH=/usr/bin:/bin", "X=a\u0000--bind\u0000/\u0000/host"]), "X"],
      ["nul-name", (c) => (c.Env = ["X\u0000--bind=/"]), "X\u0000--bind"],
      ["many-env", (c) => (c.Env = Array.from({ length: IMAGE_LIMITS.envEntries + 1 }, (_, i) => `V${i}=x`)), ""],
      ["big-env", (c) => (c.Env = [`BIG=${"x".repeat(IMAGE_LIMITS.envValueBytes + 1)}`]), ""],
      ["long-command", (c) => (c.Cmd = Array.from({ length: IMAGE_LIMITS.args + 1 }, () => "/app/server.js")), ""],
      ["nul-command", (c) => (c.Entrypoint = ["/usr/bin/node\u0000--bind"]), ""],
      ["odd-command", (c) => (c.Entrypoint = "/usr/bin/node"), ""],
      ["nul-workdir", (c) => (c.WorkingDir = "/app\u0000--bind"), ""],
    ];
    for (const [tag, edit] of refused) await images.rewrite("1", tag, { config: (j) => edit(j.config) });
    const texts: Record<string, (image: string, entry: string) => string> = {
      "nul-env": IMAGE_TEXT.envNul,
      "nul-name": IMAGE_TEXT.envNul,
      "many-env": IMAGE_TEXT.envTooLarge,
      "big-env": IMAGE_TEXT.envTooLarge,
      "long-command": IMAGE_TEXT.commandTooLarge,
      "nul-command": (image) => IMAGE_TEXT.badCommand(image, "Entrypoint"),
      "odd-command": (image) => IMAGE_TEXT.badCommand(image, "Entrypoint"),
      "nul-workdir": IMAGE_TEXT.badWorkingDir,
    };
    const before = await cached();
    await Promise.all(
      refused.map(async ([tag, , entry]) => {
        const image = `${hostile!.host}/fixture/config:${tag}`;
        const failed = await deploy(`docker run -i ${image}`, {}, "failed");
        expect([tag, failed.status_detail]).toEqual([tag, expect.stringContaining(texts[tag]!(image, entry))]);
      }),
    );
    expect(await cached()).toEqual(before);
    expect((await images_()).filter((d) => d.startsWith(".tmp-"))).toEqual([]);

    // A WorkingDir that climbs is read inside the image, never above its root: `/../../../app` is /app.
    // Entries that are not NAME=value with a POSIX name (Docker passes any on) are left out, and the owner is told.
    // (An empty name, "=x", or no "=" at all umoci itself refuses: the deploy fails with its words.)
    const odd = ["A B=x", "my.var=1", "1ST=x"];
    await images.rewrite("1", "climb", {
      config: (j) => {
        j.config.WorkingDir = "/../../../app";
        j.config.User = "0:0";
        j.config.Env = ["PATH=/usr/bin:/bin", ...odd, "GOOD=yes"];
      },
    });
    const d = await deploy(`docker run -i ${hostile!.host}/fixture/config:climb`, {}, "running");
    const client = await sdkClient(d.url, d.key);
    expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "server.js" } }))).toContain("mcp-fixture");
    expect(textOf(await client.callTool({ name: "get_env", arguments: { name: "GOOD" } }))).toBe("yes");
    expect(textOf(await client.callTool({ name: "list_env", arguments: {} })).split("\n")).not.toContain("my.var");
    await client.close();
    const log = ((await (await d.c.get(`/api/deployments/${d.id}/logs`)).json()) as { lines: string[] }).lines;
    expect(log).toContain(IMAGE_TEXT.envLeftOut(odd));
    expect(await uidOf(d, d.key)).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
  }, 300_000);

  it("keeps nothing in the shared cache that another uid could write: world-writable folders and files, sticky and set-id bits", async () => {
    await images.build("modes", {
      change: async (root) => {
        const at = (p: string) => path.join(root, "app", p);
        await fs.mkdir(at("open-dir"));
        await fs.chmod(at("open-dir"), 0o777);
        await fs.writeFile(at("open-dir/open-file"), "x");
        await fs.chmod(at("open-dir/open-file"), 0o666);
        await fs.mkdir(at("sticky"));
        await fs.chmod(at("sticky"), 0o1777);
        await fs.writeFile(at("group-file"), "x");
        await fs.chmod(at("group-file"), 0o2775);
        await fs.chmod(path.join(root, "app"), 0o777);
      },
    });
    const digest = await registry.push(images.layout, "modes", "fixture/modes");
    const d = await deploy(`docker run -i ${registry.host}/fixture/modes:modes`, {}, "running");
    const { stdout } = await run("find", [treeOf(digest), "-not", "-type", "l", "-perm", "/7022", "-printf", "%m %p\n"]);
    expect(stdout).toBe("");
    // Readable by the deployments' uids still, and the server runs.
    expect(((await fs.stat(path.join(treeOf(digest), "app/open-dir/open-file"))).mode & 0o777).toString(8)).toBe("644");
    const client = await sdkClient(d.url, d.key);
    expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "/app/open-dir/open-file" } }))).toBe("x");
    await client.close();
    // A tree an older version kept unsealed (no marker) is sealed on its next use.
    await fs.chmod(path.join(treeOf(digest), "app/open-dir"), 0o777);
    await fs.rm(path.join(packagesDir, "images", ".sealed", path.basename(path.dirname(treeOf(digest)))));
    await deploy(`docker run -i ${registry.host}/fixture/modes:modes`, {}, "running");
    expect(((await fs.stat(path.join(treeOf(digest), "app/open-dir"))).mode & 0o777).toString(8)).toBe("755");
  }, 180_000);

  it("refuses manifests and configurations over 4 MB before it downloads or parses them, whatever the registry serves", async () => {
    const other = imageArch() === "amd64" ? "arm64" : "amd64";
    await images.rewrite("1", "fat-manifest", { manifest: (m) => (m.annotations = { evil: "x".repeat(5 * 1024 * 1024) }) });
    await images.rewrite("1", "fat-config", { config: (c) => (c.config.Labels = { evil: "x".repeat(5 * 1024 * 1024) }) });
    await images.build("other-arch", { config: ["--architecture", other] });
    await images.index("fat-index", ["other-arch", "fat-manifest"]);
    const before = await cached();
    for (const [tag, what] of [
      ["fat-manifest", "manifest"],
      ["fat-config", "configuration"],
      ["fat-index", "manifest"],
    ] as const) {
      const image = `${hostile!.host}/fixture/fat:${tag}`;
      const failed = await deploy(`docker run -i ${image}`, {}, "failed");
      expect([tag, failed.status_detail]).toEqual([tag, expect.stringContaining(IMAGE_TEXT.manifestTooLarge(image, what))]);
    }
    expect(await cached()).toEqual(before);
    // The same registry serves an image of ordinary sizes, which runs.
    const fine = await deploy(`docker run -i ${hostile!.host}/fixture/fat:1`, {}, "running");
    const client = await sdkClient(fine.url, fine.key);
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 2 } }))).toBe("4");
    await client.close();
  }, 240_000);

  it("stops 250,000 files at IMAGE_MAX_FILES (200,000) with its own message while they unpack, long before the install timeout", async () => {
    await images.withLayer("1", "bomb", [{ type: "many", name: "bomb", count: 250_000 }]);
    const digest = await registry.push(images.layout, "bomb", "fixture/bomb");
    const started = Date.now();
    const failed = await deploy(`docker run -i ${registry.host}/fixture/bomb:bomb`, {}, "failed");
    const seconds = (Date.now() - started) / 1000;
    console.info(`250,000 files refused after ${seconds.toFixed(1)} s`);
    expect(failed.status_detail).toContain(IMAGE_TEXT.tooManyFiles(`${registry.host}/fixture/bomb:bomb`, 200_000));
    expect(seconds).toBeLessThan(Number(t.config.DEPLOY_INSTALL_TIMEOUT_MS) / 1000);
    expect(await cached()).not.toContain(`${digest.replace(":", "-")}-${imageArch()}`);
    expect((await images_()).filter((d) => d.startsWith(".tmp-"))).toEqual([]);
  }, 400_000);
});
