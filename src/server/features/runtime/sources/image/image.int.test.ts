import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { addCatalogEntry, registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { newApiKey, sdkClient, textOf } from "~support/gateway.js";
import { imageBuilder, imageToolsMissing, startImageRegistry, type ImageBuilder, type ImageRegistry } from "~support/image-registry.js";
import { lexText } from "../../command-lex.js";
import { projectRoot } from "~/server/paths.js";
import { IMAGE_TEXT, imageArch } from "./image-cache.js";

// Container images deployed like any other server: a real registry on a test host (the
// distribution server, in a network namespace), images built by the test with umoci, pulled by
// digest in the installer's sandbox, unpacked once per digest and run with the image's tree as
// `/` in the same sandbox. Calls go through the gateway with the MCP SDK's client.

const run = promisify(execFile);
const why = await imageToolsMissing();
let t: TestApp;
let registry: ImageRegistry;
let images: ImageBuilder;
let packagesDir: string;
let digest: string;
let users = 0;
/** A registry on a private address: the operator's network, which a tenant's image reference must not reach. */
const PRIVATE_REGISTRY = "10.213.77.2:7792";

beforeAll(async () => {
  if (why) return;
  registry = await startImageRegistry({ address: "203.0.113.71", port: 7791 });
  images = await imageBuilder();
  await images.build("1");
  digest = await registry.push(images.layout, "1", "fixture/node");
  packagesDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-images-"));
  const port = await freePort();
  t = await createTestApp({
    PACKAGES_DIR: packagesDir,
    // Both over plain HTTP; the private one is still out of the sandbox's reach (see below).
    IMAGE_INSECURE_REGISTRIES: `${registry.host},${PRIVATE_REGISTRY}`,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RESTART_BACKOFF_MS: "200",
    DEPLOY_START_TIMEOUT_MS: "20000",
  });
  await t.listen();
}, 180_000);

afterAll(async () => {
  await t?.close();
  await registry?.close();
  await images?.close();
  if (packagesDir) await fs.rm(packagesDir, { recursive: true, force: true });
});

/** A platform of its own beside `t`, on the same package cache, with its own settings (and its own tag cache), listening. */
async function ownPlatform(env: Record<string, string>): Promise<TestApp> {
  const port = await freePort();
  const app = await createTestApp({
    PACKAGES_DIR: packagesDir,
    IMAGE_INSECURE_REGISTRIES: registry.host,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...env,
  });
  await app.listen();
  return app;
}

async function user(): Promise<{ c: Client; key: string; name: string }> {
  const name = `img${++users}`;
  const c = await signedInUser(t, `${name}@example.com`);
  return { c, key: await newApiKey(c, "images"), name };
}

async function deploy(c: Client, id: string, command: string, env: Record<string, string> = {}): Promise<DeploymentView> {
  const r = await c.post(`/api/deploy/${id}`, { npx_command: command, env });
  expect(r.status, await r.clone().text()).toBe(202);
  return ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
}

const cached = async () => (await fs.readdir(path.join(packagesDir, "images"))).filter((d) => !d.startsWith("."));

/** Every entry of a tree, without following links. */
async function walk(dir: string): Promise<{ p: string; mode: number; kind: string }[]> {
  const out: { p: string; mode: number; kind: string }[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    const st = await fs.lstat(p);
    const kind = st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
    out.push({ p, mode: st.mode & 0o7777, kind });
    if (kind === "dir") out.push(...(await walk(p)));
  }
  return out;
}

describe.skipIf(why)(`Container images${why ? ` (skipped: ${why})` : ""}`, () => {
  it("deploys an owned server from `docker run -i`: pulled by digest, its keys, its Env, its tree as / and the host's nowhere", async () => {
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/node`);
    const d = await deploy(c, `${name}/node`, `docker run -i --rm -e API_KEY ${registry.host}/fixture/node:1`, { API_KEY: "sekrit" });
    expect(d.source).toBe(`image:${registry.host}/fixture/node:1`);
    const running = await waitForStatus(c, `${name}/node`, "running", 120_000);

    const client = await sdkClient(running.url, key);
    expect(client.getServerVersion()).toMatchObject({ name: "mcp-fixture" });
    const env = async (n: string) => textOf(await client.callTool({ name: "get_env", arguments: { name: n } }));
    expect(await env("API_KEY")).toBe("sekrit");
    expect(await env("FIXTURE_IMAGE")).toBe("node"); // the image's own Env
    expect(await env("HOME")).toBe("/data");
    const read = async (p: string) => textOf(await client.callTool({ name: "read_file", arguments: { path: p } }));
    // The image's tree is the root: the host's system and the platform's files are not there.
    expect(existsSync("/etc/os-release")).toBe(true);
    expect(await read("/etc/os-release")).toMatch(/^ERROR ENOENT/);
    expect(await read("/usr/bin/skopeo")).toMatch(/^ERROR ENOENT/);
    expect(await read(path.join(packagesDir, "images"))).toMatch(/^ERROR ENOENT/);
    expect(await read("/app/server.js")).toContain("mcp-fixture");
    // The same network as any deployment: public addresses (the registry's test host), never the
    // platform's own ports or the machine's PostgreSQL on loopback.
    const connect = async (host: string, port: number) => textOf(await client.callTool({ name: "try_connect", arguments: { host, port } }));
    const [regHost, regPort] = registry.host.split(":");
    expect(await connect(regHost!, Number(regPort))).toBe("connected");
    expect(await connect("127.0.0.1", Number(new URL(t.config.PUBLIC_URL).port))).toMatch(/^refused/);
    expect(await connect("127.0.0.1", 5432)).toMatch(/^refused/);
    // Not root, inside or out: the deployment's own uid.
    const uid = /^Uid:\s+(\d+)/m.exec(await read("/proc/self/status"))?.[1];
    expect(Number(uid)).toBeGreaterThan(0);
    await client.close();

    // One tree per digest and architecture, kept for the next deployment.
    expect(await cached()).toEqual([`${digest.replace(":", "-")}-${imageArch()}`]);
  }, 180_000);

  it("a deploy by digest uses the tree already there; the reference alone deploys too", async () => {
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/pinned`);
    await deploy(c, `${name}/pinned`, `${registry.host}/fixture/node@${digest}`);
    const running = await waitForStatus(c, `${name}/pinned`, "running", 60_000);
    const client = await sdkClient(running.url, key);
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    await client.close();
    expect(await cached()).toHaveLength(1);
  }, 120_000);

  it("deploys a catalogue entry whose command is an image, asking for its keys like any other", async () => {
    await addCatalogEntry(t, "boxed-node", `docker run -i --rm -e BOX_TOKEN ${registry.host}/fixture/node:1`, [
      { key: "Token", env_var: "BOX_TOKEN", description: "The token" },
    ]);
    const { c, key } = await user();
    const missing = await c.post("/api/deploy/boxed-node", { env: {} });
    expect(missing.status).toBe(400);
    const r = await c.post("/api/deploy/boxed-node", { env: { BOX_TOKEN: "from the catalogue" } });
    expect(r.status, await r.clone().text()).toBe(202);
    const running = await waitForStatus(c, "boxed-node", "running", 60_000);
    const client = await sdkClient(running.url, key);
    expect(textOf(await client.callTool({ name: "get_env", arguments: { name: "BOX_TOKEN" } }))).toBe("from the catalogue");
    await client.close();
  }, 120_000);

  it("contains a hostile image: no set-id bit, no device node, links resolve inside its own root", async () => {
    await images.build("hostile", {
      change: async (root) => {
        await fs.copyFile(path.join(root, "usr/bin/node"), path.join(root, "app/suid"));
        await fs.chmod(path.join(root, "app/suid"), 0o4755);
        await fs.mkdir(path.join(root, "app/sgid-dir"));
        await fs.chmod(path.join(root, "app/sgid-dir"), 0o2777);
        await run("mknod", [path.join(root, "app/mem"), "c", "1", "1"]);
        await fs.symlink("/etc", path.join(root, "app/etc-link"));
        await fs.symlink("/", path.join(root, "tmp"));
      },
    });
    const hostileDigest = await registry.push(images.layout, "hostile", "fixture/hostile");
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/hostile`);
    await deploy(c, `${name}/hostile`, `docker run -i ${registry.host}/fixture/hostile:hostile`);
    const running = await waitForStatus(c, `${name}/hostile`, "running", 120_000);

    const tree = await walk(path.join(packagesDir, "images", `${hostileDigest.replace(":", "-")}-${imageArch()}`, "rootfs"));
    expect(tree.filter((e) => e.mode & 0o6000).map((e) => e.p)).toEqual([]);
    expect(tree.filter((e) => e.kind === "other").map((e) => e.p)).toEqual([]);
    expect(tree.find((e) => e.p.endsWith("/rootfs/tmp"))?.kind).toBe("dir");

    const client = await sdkClient(running.url, key);
    const read = async (p: string) => textOf(await client.callTool({ name: "read_file", arguments: { path: p } }));
    // The absolute link leads to the sandbox's own /etc, never the host's.
    const passwd = await read("/app/etc-link/passwd");
    expect(passwd).toContain("mcp:x:");
    expect(readFileSync("/etc/passwd", "utf8")).not.toBe(passwd);
    // The device node is not one any more (umoci's rootless unpack leaves an empty file in its place).
    expect(await read("/app/mem")).toBe("");
    expect(tree.find((e) => e.p.endsWith("/app/mem"))?.kind).toBe("file");
    await client.close();
  }, 180_000);

  it("holds the hostile tenant's checks in an image whose configuration asks for root (User 0)", async () => {
    await images.build("tenant", {
      change: (root) => fs.copyFile(path.join(projectRoot, "tests/fixtures/hostile-server/server.js"), path.join(root, "app/hostile.js")),
      config: ["--config.user", "0:0"],
    });
    await registry.push(images.layout, "tenant", "fixture/tenant");
    const { c, name } = await user();
    await registerOwnedServer(c, `${name}/tenant`);
    // Arguments after the image replace its Cmd: node runs the hostile server instead of the fixture.
    const d = await deploy(c, `${name}/tenant`, `docker run -i ${registry.host}/fixture/tenant:tenant /app/hostile.js`);
    await waitForStatus(c, `${name}/tenant`, "running", 120_000);
    const call = async <T>(tool: string, args: Record<string, unknown> = {}) =>
      JSON.parse(textOf(await t.runtime.runner.client(d.id)!.callTool({ name: tool, arguments: args }))) as T;

    const me = await call<{ uid: number; capEff: string; capBnd: string; noNewPrivs: string; seccomp: string; cwd: string }>("whoami");
    expect(me.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(me).toMatchObject({ capEff: "0000000000000000", capBnd: "0000000000000000", noNewPrivs: "1", seccomp: "2", cwd: "/app" });
    const corePattern = readFileSync("/proc/sys/kernel/core_pattern", "utf8");
    const targets = [
      "/proc/sys/kernel/core_pattern",
      "/proc/sys/vm/drop_caches",
      "/proc/sys/kernel/modprobe",
      "/proc/sysrq-trigger",
      "/sys/kernel/uevent_helper",
      "/etc/passwd",
      "/usr/bin/node",
      "/app/hostile.js",
    ];
    const opened = await call<Record<string, string>>("open_for_writing", { paths: targets });
    for (const p of targets) expect([p, opened[p]]).not.toEqual([p, "writable"]);
    expect(readFileSync("/proc/sys/kernel/core_pattern", "utf8")).toBe(corePattern);
    // Nothing of the platform: its data, the other deployments' folders, the package cache.
    const platform = [t.config.DATA_DIR, path.join(t.config.DATA_DIR, "deployments"), packagesDir, projectRoot].filter((p) =>
      existsSync(p),
    );
    expect(platform.length).toBeGreaterThanOrEqual(3);
    for (const p of platform)
      expect([p, await call<{ error?: string }>("read_file", { path: path.join(p, "x") })]).toEqual([p, { error: "ENOENT" }]);
    expect(await call<{ error?: string }>("read_file", { path: path.join(projectRoot, "package.json") })).toEqual({ error: "ENOENT" });
  }, 180_000);

  it("keeps a layer's hostile entries inside the image's root: ../ paths, writes through a link, whiteouts aimed outside; a hard link to a host file fails the deploy", async () => {
    // Not under /tmp: the sandbox has a /tmp of its own, which would hide where the entries land inside.
    const outside = await fs.mkdtemp("/var/tmp/switchboard-image-victim-");
    await fs.writeFile(path.join(outside, "victim"), "still here");
    try {
      await images.withLayer("1", "escapes", [
        { type: "file", name: `../../../../../../..${outside}/escaped`, data: "escaped" },
        { type: "symlink", name: "app/out", target: outside },
        { type: "file", name: "app/out/through-link", data: "through" },
        { type: "file", name: `../../../../../../..${outside}/.wh.victim`, data: "" },
      ]);
      await registry.push(images.layout, "escapes", "fixture/escapes");
      const { c, key, name } = await user();
      await registerOwnedServer(c, `${name}/escapes`);
      await deploy(c, `${name}/escapes`, `docker run -i ${registry.host}/fixture/escapes:escapes`);
      const running = await waitForStatus(c, `${name}/escapes`, "running", 120_000);
      expect((await fs.readdir(outside)).sort()).toEqual(["victim"]);
      expect(await fs.readFile(path.join(outside, "victim"), "utf8")).toBe("still here");
      // What it wrote landed inside its own tree, where the server sees it at the path it named.
      const client = await sdkClient(running.url, key);
      expect(textOf(await client.callTool({ name: "read_file", arguments: { path: `${outside}/through-link` } }))).toBe("through");
      await client.close();

      await images.withLayer("1", "hardlink", [{ type: "hardlink", name: "app/passwd", target: "../../../../../../etc/passwd" }]);
      await registry.push(images.layout, "hardlink", "fixture/hardlink");
      const other = await user();
      await registerOwnedServer(other.c, `${other.name}/hardlink`);
      await deploy(other.c, `${other.name}/hardlink`, `docker run -i ${registry.host}/fixture/hardlink:hardlink`);
      const failed = await waitForStatus(other.c, `${other.name}/hardlink`, "failed", 120_000);
      expect(failed.status_detail).toContain(`Could not unpack the image ${registry.host}/fixture/hardlink:hardlink`);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  }, 240_000);

  it("fails with a clear status: an image for another architecture, a blob that does not match its digest", async () => {
    const other = imageArch() === "amd64" ? "arm64" : "amd64";
    await images.build("foreign", { config: ["--architecture", other] });
    await registry.push(images.layout, "foreign", "fixture/foreign");
    await images.build("corrupt", { change: async (root) => fs.writeFile(path.join(root, "app/extra.txt"), "x".repeat(4096)) });
    await registry.push(images.layout, "corrupt", "fixture/corrupt");
    // The newest layer of the pushed image, overwritten in the registry's storage with other bytes of the same size.
    const index = JSON.parse(await fs.readFile(path.join(images.layout, "index.json"), "utf8")) as {
      manifests: { digest: string; annotations?: Record<string, string> }[];
    };
    const m = index.manifests.find((x) => x.annotations?.["org.opencontainers.image.ref.name"] === "corrupt")!;
    const manifest = JSON.parse(await fs.readFile(path.join(images.layout, "blobs/sha256", m.digest.slice(7)), "utf8")) as {
      layers: { digest: string; size: number }[];
    };
    const layer = manifest.layers.at(-1)!;
    await fs.writeFile(registry.blobFile(layer.digest), Buffer.alloc(layer.size, 7));

    const { c, name } = await user();
    await registerOwnedServer(c, `${name}/foreign`);
    await deploy(c, `${name}/foreign`, `docker run -i ${registry.host}/fixture/foreign:foreign`);
    const foreign = await waitForStatus(c, `${name}/foreign`, "failed", 120_000);
    expect(foreign.status_detail).toContain(
      IMAGE_TEXT.otherArch(`${registry.host}/fixture/foreign:foreign`, `linux/${other}`, `linux/${imageArch()}`),
    );

    await registerOwnedServer(c, `${name}/corrupt`);
    await deploy(c, `${name}/corrupt`, `docker run -i ${registry.host}/fixture/corrupt:corrupt`);
    const corrupt = await waitForStatus(c, `${name}/corrupt`, "failed", 120_000);
    expect(corrupt.status_detail).toContain(`Could not pull the image ${registry.host}/fixture/corrupt:corrupt`);
    expect(corrupt.status_detail).toMatch(/digest/i);
  }, 240_000);

  it("refuses an image whose tree is larger than DEPLOY_DISK_MB, a sparse file counted whole, and keeps nothing of it", async () => {
    // A platform of its own with a small limit: the node image (about 100 MB) and a 200 MB sparse
    // file, which takes almost nothing in the registry and on disk, pass 128 MB only by their holes.
    const small = await ownPlatform({ DEPLOY_DISK_MB: "128" });
    try {
      await images.build("sparse", {
        change: async (root) => {
          const fh = await fs.open(path.join(root, "app/holes"), "w");
          await fh.truncate(200 * 1024 * 1024);
          await fh.close();
        },
      });
      const sparseDigest = await registry.push(images.layout, "sparse", "fixture/sparse");
      const c = await signedInUser(small, "sparse@example.com");
      await registerOwnedServer(c, "sparse/holes");
      const r = await c.post("/api/deploy/sparse/holes", { npx_command: `docker run -i ${registry.host}/fixture/sparse:sparse`, env: {} });
      expect(r.status, await r.clone().text()).toBe(202);
      const failed = await waitForStatus(c, "sparse/holes", "failed", 120_000);
      expect(failed.status_detail).toContain(IMAGE_TEXT.tooLarge(`${registry.host}/fixture/sparse:sparse`, 128));
      expect(await cached()).not.toContain(`${sparseDigest.replace(":", "-")}-${imageArch()}`);
      expect((await fs.readdir(path.join(packagesDir, "images"))).filter((d) => d.startsWith(".tmp-"))).toEqual([]);
    } finally {
      await small.close();
    }
  }, 180_000);

  it("takes this machine's image out of a multi-arch index", async () => {
    const other = imageArch() === "amd64" ? "arm64" : "amd64";
    await images.build("other-arch", { config: ["--architecture", other] });
    await images.index("multi", ["other-arch", "1"]);
    const indexDigest = await registry.push(images.layout, "multi", "fixture/multi");
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/multi`);
    await deploy(c, `${name}/multi`, `docker run -i ${registry.host}/fixture/multi:multi`);
    const running = await waitForStatus(c, `${name}/multi`, "running", 120_000);
    const client = await sdkClient(running.url, key);
    expect(textOf(await client.callTool({ name: "get_env", arguments: { name: "FIXTURE_IMAGE" } }))).toBe("node");
    await client.close();
    // Kept under the index's digest, for this architecture.
    expect(await cached()).toContain(`${indexDigest.replace(":", "-")}-${imageArch()}`);
  }, 180_000);

  it("pulls within the sandbox's egress rules: a registry on a private address is out of reach, though the host reaches it", async () => {
    const [address, port] = PRIVATE_REGISTRY.split(":");
    const internal = await startImageRegistry({ address: address!, port: Number(port) });
    try {
      // The host pushes to it: the address answers, so a refusal below is the sandbox's.
      await internal.push(images.layout, "1", "internal/node");
      const { c, name } = await user();
      await registerOwnedServer(c, `${name}/internal`);
      await deploy(c, `${name}/internal`, `docker run -i ${PRIVATE_REGISTRY}/internal/node:1`);
      const failed = await waitForStatus(c, `${name}/internal`, "failed", 120_000);
      expect(failed.status_detail).toContain(`Could not pull the image ${PRIVATE_REGISTRY}/internal/node:1`);
      // Refused by the sandbox's egress rules (EPERM at connect), not a registry that did not answer.
      expect(failed.status_detail).toMatch(/connect: permission denied/);
    } finally {
      await internal.close();
    }
  }, 180_000);

  it("pulls from a private registry with the operator's credentials (IMAGE_REGISTRY_AUTH_FILE), and without them says the registry refused", async () => {
    const password = `op-token-${Date.now()}`;
    const privateRegistry = await startImageRegistry({ address: "203.0.113.72", port: 7793, auth: { user: "operator", password } });
    const authDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-auth-"));
    let withAuth: TestApp | undefined;
    try {
      await privateRegistry.push(images.layout, "1", "private/node");
      const image = `${privateRegistry.host}/private/node:1`;

      // The operator's file, in docker's format: at first only another registry's entry.
      const authFile = path.join(authDir, "config.json");
      const entry = (u: string, p: string) => ({ auth: Buffer.from(`${u}:${p}`).toString("base64") });
      const other = { "other.example:5000": entry("other", "other-secret") };
      await fs.writeFile(authFile, JSON.stringify({ auths: other }), { mode: 0o600 });
      withAuth = await ownPlatform({
        IMAGE_INSECURE_REGISTRIES: `${registry.host},${privateRegistry.host}`,
        IMAGE_REGISTRY_AUTH_FILE: authFile,
      });
      const ownerName = `private${Date.now()}`;
      const owner = await signedInUser(withAuth, `${ownerName}@example.com`);
      const key = await newApiKey(owner, "private");

      // No credentials for this registry: its refusal is the owner's status.
      await registerOwnedServer(owner, `${ownerName}/refused`);
      const first = await owner.post(`/api/deploy/${ownerName}/refused`, { npx_command: `docker run -i ${image}`, env: {} });
      expect(first.status, await first.clone().text()).toBe(202);
      const refused = await waitForStatus(owner, `${ownerName}/refused`, "failed", 120_000);
      expect(refused.status_detail).toContain(`Could not pull the image ${image}`);
      expect(refused.status_detail).toMatch(/unauthorized|authentication required/i);

      // The operator adds the registry's entry: the next pull reads it, no restart needed.
      await fs.writeFile(authFile, JSON.stringify({ auths: { ...other, [privateRegistry.host]: entry("operator", password) } }));
      await registerOwnedServer(owner, `${ownerName}/node`);
      const r = await owner.post(`/api/deploy/${ownerName}/node`, { npx_command: `docker run -i ${image}`, env: {} });
      expect(r.status, await r.clone().text()).toBe(202);
      const running = await waitForStatus(owner, `${ownerName}/node`, "running", 120_000);
      const client = await sdkClient(running.url, key);
      expect(textOf(await client.callTool({ name: "add", arguments: { a: 20, b: 22 } }))).toBe("42");
      // The server reads no trace of the credentials: nothing of them in its environment, and no
      // file of the image's tree (or anything else under PACKAGES_DIR) holds them.
      const names = textOf(await client.callTool({ name: "list_env", arguments: {} })).split("\n");
      for (const n of names) expect(textOf(await client.callTool({ name: "get_env", arguments: { name: n } }))).not.toContain(password);
      expect(names.some((n) => /AUTH|REGISTRY/i.test(n))).toBe(false);
      await client.close();
      const { stdout } = await run("grep", ["-rIl", "--", password, packagesDir], { env: { PATH: "/usr/bin:/bin" } }).catch(
        (e: { stdout?: string }) => ({ stdout: e.stdout ?? "" }),
      );
      expect(stdout).toBe("");
    } finally {
      await withAuth?.close();
      await privateRegistry.close();
      await fs.rm(authDir, { recursive: true, force: true });
    }
  }, 240_000);

  it("gives each deployment its own writable layer over the shared tree: it writes where its image put it, keeps it across a crash, and nothing reaches the tree or another deployment", async () => {
    // The image's start script writes into its working directory and a folder the image does not have.
    await images.build("writer", {
      change: async (root) => {
        await fs.writeFile(
          path.join(root, "app/start.js"),
          [
            'const fs = require("fs");',
            'const before = fs.existsSync("/app/state.txt") ? fs.readFileSync("/app/state.txt", "utf8") : "";',
            'fs.writeFileSync("/app/state.txt", before + "started\\n");',
            'fs.mkdirSync("/var/cache/fixture", { recursive: true });',
            'fs.writeFileSync("/var/cache/fixture/uid", String(process.getuid()));',
            // A hostile layer: links to a host folder and file, for the platform to follow when it removes the layer.
            'for (const [to, at] of [[process.env.CANARY_DIR, "/app/dir-link"], [process.env.CANARY_DIR + "/canary", "/var/cache/fixture/file-link"]])',
            "  try { if (process.env.CANARY_DIR) fs.symlinkSync(to, at); } catch {}",
            'require("/app/server.js");',
          ].join("\n"),
        );
      },
    });
    const writerDigest = await registry.push(images.layout, "writer", "fixture/writer");
    const image = `${registry.host}/fixture/writer:writer`;
    const a = await user();
    const b = await user();
    const deployments = path.resolve(projectRoot, t.config.DEPLOYMENTS_DIR ?? path.join(t.config.DATA_DIR, "deployments"));
    const read = async (client: Awaited<ReturnType<typeof sdkClient>>, file: string) =>
      textOf(await client.callTool({ name: "read_file", arguments: { path: file } }));

    await registerOwnedServer(a.c, `${a.name}/writer`);
    await registerOwnedServer(b.c, `${b.name}/writer`);
    const canaryDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-test-canary-"));
    await fs.writeFile(path.join(canaryDir, "canary"), "host file");
    await deploy(a.c, `${a.name}/writer`, `docker run -i ${image} /app/start.js`, { CANARY_DIR: canaryDir });
    await deploy(b.c, `${b.name}/writer`, `docker run -i ${image} /app/start.js`);
    const ra = await waitForStatus(a.c, `${a.name}/writer`, "running", 120_000);
    const rb = await waitForStatus(b.c, `${b.name}/writer`, "running", 120_000);
    const ca = await sdkClient(ra.url, a.key);
    const cb = await sdkClient(rb.url, b.key);
    expect(await read(ca, "/app/state.txt")).toBe("started\n");
    expect(await read(cb, "/app/state.txt")).toBe("started\n");
    // Written as the deployment's own uid, never root.
    expect(Number(await read(ca, "/var/cache/fixture/uid"))).toBeGreaterThan(0);
    // The image's own files are there, and stay the image's.
    expect(await read(ca, "/app/server.js")).toContain("mcp-fixture");
    await ca.close();
    await cb.close();

    // The shared tree holds none of it.
    const tree = path.join(packagesDir, "images", `${writerDigest.replace(":", "-")}-${imageArch()}`, "rootfs");
    expect(existsSync(path.join(tree, "app/start.js"))).toBe(true);
    expect(existsSync(path.join(tree, "app/state.txt"))).toBe(false);
    expect(existsSync(path.join(tree, "var/cache/fixture"))).toBe(false);

    // A crash restarts the server on the same layer: the script finds what it wrote before. (A
    // Restart by the owner starts anew, on a fresh volume and layer, like any deployment.)
    const crashing = await sdkClient(ra.url, a.key);
    await crashing.callTool({ name: "crash", arguments: {} }).catch(() => undefined);
    await crashing.close().catch(() => undefined);
    await expect
      .poll(
        async () => {
          const client = await sdkClient(ra.url, a.key);
          try {
            return await read(client, "/app/state.txt");
          } finally {
            await client.close();
          }
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBe("started\nstarted\n");

    // Removing the deployment unmounts its layer and removes it with the volume.
    const merged = path.join(deployments, ".roots", ra.id);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).toContain(` ${merged} `);
    const upper = path.join(deployments, ra.id, ".layer", `${writerDigest.replace(":", "-")}`, "upper");
    expect((await fs.lstat(path.join(upper, "app/dir-link"))).isSymbolicLink()).toBe(true);
    expect((await fs.lstat(path.join(upper, "var/cache/fixture/file-link"))).isSymbolicLink()).toBe(true);
    expect((await a.c.del(`/api/deployments/${ra.id}`)).status).toBe(200);
    await expect.poll(() => readFileSync("/proc/self/mountinfo", "utf8").includes(` ${merged} `), { timeout: 30_000 }).toBe(false);
    await expect.poll(() => existsSync(path.join(deployments, ra.id)), { timeout: 30_000 }).toBe(false);
    // The layer's links were removed as links: the host folder and file they named are untouched.
    expect(await fs.readFile(path.join(canaryDir, "canary"), "utf8")).toBe("host file");
    await fs.rm(canaryDir, { recursive: true, force: true });
    expect((await b.c.del(`/api/deployments/${rb.id}`)).status).toBe(200);
  }, 300_000);

  it("stops a layer bomb (more files than IMAGE_MAX_FILES) with a clear status, and keeps nothing of it", async () => {
    // A platform of its own with a small cap, so the bomb is quick to build: 20,000 empty files
    // against 2,000 (the default cap is 200,000; the watch counts files while umoci unpacks).
    const small = await ownPlatform({ IMAGE_MAX_FILES: "2000" });
    try {
      await images.withLayer("1", "bomb", [{ type: "many", name: "bomb", count: 20_000 }]);
      const bombDigest = await registry.push(images.layout, "bomb", "fixture/bomb");
      const c = await signedInUser(small, "bomb@example.com");
      await registerOwnedServer(c, "bomb/many");
      const r = await c.post("/api/deploy/bomb/many", { npx_command: `docker run -i ${registry.host}/fixture/bomb:bomb`, env: {} });
      expect(r.status, await r.clone().text()).toBe(202);
      const failed = await waitForStatus(c, "bomb/many", "failed", 120_000);
      expect(failed.status_detail).toContain(IMAGE_TEXT.tooManyFiles(`${registry.host}/fixture/bomb:bomb`, 2000));
      expect(await cached()).not.toContain(`${bombDigest.replace(":", "-")}-${imageArch()}`);
      expect((await fs.readdir(path.join(packagesDir, "images"))).filter((d) => d.startsWith(".tmp-"))).toEqual([]);
    } finally {
      await small.close();
    }
  }, 180_000);

  it("follows a tag that moved to another digest: within the hour a platform keeps the digest it resolved, a fresh resolve pulls the new one, and a digest names its own image", async () => {
    const version = (v: string) => async (root: string) => fs.writeFile(path.join(root, "app/version"), v);
    await images.build("move-a", { change: version("a") });
    await images.build("move-b", { change: version("b") });
    const digestA = await registry.push(images.layout, "move-a", "fixture/moving", "latest");
    const image = `${registry.host}/fixture/moving:latest`;
    const versionOf = async (app: TestApp, command: string): Promise<string> => {
      const n = `mv${++users}`;
      const c = await signedInUser(app, `${n}@example.com`);
      const key = await newApiKey(c, "moving");
      await registerOwnedServer(c, `${n}/moving`);
      const r = await c.post(`/api/deploy/${n}/moving`, { npx_command: command, env: {} });
      expect(r.status, await r.clone().text()).toBe(202);
      const running = await waitForStatus(c, `${n}/moving`, "running", 120_000);
      const client = await sdkClient(running.url, key);
      try {
        return textOf(await client.callTool({ name: "read_file", arguments: { path: "/app/version" } }));
      } finally {
        await client.close();
        await c.del(`/api/deployments/${running.id}`);
      }
    };
    expect(await versionOf(t, `docker run -i ${image}`)).toBe("a");

    const digestB = await registry.push(images.layout, "move-b", "fixture/moving", "latest");
    expect(digestB).not.toBe(digestA);
    // This platform resolved the tag less than an hour ago: it keeps digest A, pulling nothing.
    expect(await versionOf(t, `docker run -i ${image}`)).toBe("a");

    // A platform that resolves the tag now (another runner, or this one an hour later) pulls B.
    const fresh = await ownPlatform({});
    try {
      expect(await versionOf(fresh, `docker run -i ${image}`)).toBe("b");
      // By digest, each names its own image, whatever the tag says.
      expect(await versionOf(fresh, `docker run -i ${registry.host}/fixture/moving@${digestA}`)).toBe("a");
      const kept = await cached();
      for (const d of [digestA, digestB]) expect(kept).toContain(`${d.replace(":", "-")}-${imageArch()}`);
    } finally {
      await fresh.close();
    }
  }, 300_000);

  it("runs a Python image (python3 -m from its working directory) the same way: its own uid, no capabilities, its writable layer", async () => {
    await images.buildPython("python-1");
    await registry.push(images.layout, "python-1", "fixture/python", "1");
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/python`);
    await deploy(c, `${name}/python`, `docker run -i --rm ${registry.host}/fixture/python:1`, { PY_KEY: "from-the-keys" });
    const running = await waitForStatus(c, `${name}/python`, "running", 120_000);
    const client = await sdkClient(running.url, key);
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 19, b: 23 } }))).toBe("42");
    expect(textOf(await client.callTool({ name: "env", arguments: { name: "FIXTURE_IMAGE" } }))).toBe("python");
    expect(textOf(await client.callTool({ name: "env", arguments: { name: "PY_KEY" } }))).toBe("from-the-keys");
    const who = JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} }))) as Record<string, string | number>;
    expect(who.cwd).toBe("/app");
    expect(who.uid).not.toBe(0);
    expect(who.capEff).toBe("0000000000000000");
    expect(who.noNewPrivs).toBe("1");
    // Its working directory is writable in its own layer.
    expect(JSON.parse(textOf(await client.callTool({ name: "write_file", arguments: { path: "/app/note.txt" } })))).toEqual({
      written: true,
    });
    expect(JSON.parse(textOf(await client.callTool({ name: "read_file", arguments: { path: "/app/note.txt" } })))).toEqual({
      content: "written by the hosted server",
    });
    await client.close();
    expect((await c.del(`/api/deployments/${running.id}`)).status).toBe(200);
  }, 240_000);

  it("runs an image that speaks streamable HTTP (-p): reached through a relay into its own network, never a port of the host's, its answers bounded", async () => {
    const port = 18734;
    const listening = () =>
      ["/proc/net/tcp", "/proc/net/tcp6"].some((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .some((l) => l.split(/\s+/)[2]?.endsWith(`:${port.toString(16).toUpperCase().padStart(4, "0")}`) && l.split(/\s+/)[4] === "0A"),
      );
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/web`);
    await deploy(c, `${name}/web`, `docker run -p ${port} ${registry.host}/fixture/node:1`, { FIXTURE_HTTP_PORT: String(port) });
    const running = await waitForStatus(c, `${name}/web`, "running", 120_000);
    expect(running.source).toBe(`image:${registry.host}/fixture/node:1 (streamable HTTP on port ${port})`);
    const client = await sdkClient(running.url, key);
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 40, b: 2 } }))).toBe("42");
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
    // Its port is in its own network namespace: nothing listens on it on the host's.
    expect(listening()).toBe(false);
    // The relay's socket is the deployment's own, in a folder no one else may enter.
    const deployments = path.resolve(projectRoot, t.config.DEPLOYMENTS_DIR ?? path.join(t.config.DATA_DIR, "deployments"));
    const relayDir = await fs.stat(path.join(deployments, ".relays", running.id));
    expect(relayDir.mode & 0o777).toBe(0o700);
    expect(relayDir.uid).not.toBe(0);
    // An answer over 16 MB is cut off with a clear error; the server and the platform carry on.
    const big = await client.callTool({ name: "big_output", arguments: { megabytes: 20 } }).catch((e: Error) => e);
    expect(big instanceof Error ? big.message : JSON.stringify(big)).toMatch(/larger than 16777216 bytes/);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "still here" } }))).toBe("still here");
    await client.close();
    expect((await c.del(`/api/deployments/${running.id}`)).status).toBe(200);
    await expect.poll(() => existsSync(path.join(deployments, ".relays", running.id)), { timeout: 30_000 }).toBe(false);

    // A server that never opens the port it names fails with the reason, within the start timeout.
    await registerOwnedServer(c, `${name}/closed`);
    await deploy(c, `${name}/closed`, `docker run -p ${port + 1} ${registry.host}/fixture/node:1`, { FIXTURE_HTTP_PORT: String(port) });
    const failed = await waitForStatus(c, `${name}/closed`, "failed", 120_000);
    expect(failed.status_detail).toMatch(/initialize|did not take the request/);
  }, 240_000);

  it("refuses docker's ways out at the API, before anything is stored", async () => {
    const { c, name } = await user();
    await registerOwnedServer(c, `${name}/escape`);
    for (const [command, option] of [
      [`docker run -i -v /:/host ${registry.host}/fixture/node:1`, "-v"],
      [`docker run -i --privileged ${registry.host}/fixture/node:1`, "--privileged"],
      [`docker run -i --network=host ${registry.host}/fixture/node:1`, "--network"],
    ] as const) {
      const r = await c.post(`/api/deploy/${name}/escape`, { npx_command: command, env: {} });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe(lexText("docker").forbiddenOption(option));
    }
    const rows = await t.db.database.pool.query("select id from deployments where server_ref = $1", [`${name}/escape`]);
    expect(rows.rowCount).toBe(0);
  }, 60_000);

  // Last: the registry goes away for good.
  it("redeploys from the cache with the registry gone: by digest, and by a tag resolved within the hour", async () => {
    await registry.close();
    const { c, key, name } = await user();
    await registerOwnedServer(c, `${name}/offline`);
    await deploy(c, `${name}/offline`, `docker run -i ${registry.host}/fixture/node@${digest}`);
    const running = await waitForStatus(c, `${name}/offline`, "running", 60_000);
    const client = await sdkClient(running.url, key);
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe("2");
    await client.close();
    expect((await c.del(`/api/deployments/${running.id}`)).status).toBe(200);
    await deploy(c, `${name}/offline`, `docker run -i ${registry.host}/fixture/node:1`);
    expect((await waitForStatus(c, `${name}/offline`, "running", 60_000)).source).toBe(`image:${registry.host}/fixture/node:1`);
  }, 120_000);
});
