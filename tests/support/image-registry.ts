import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { projectRoot } from "~/server/paths.js";
import { canCreateTestHosts, createTestHosts, type TestHosts } from "./netns.js";

// Container images for tests, with no internet: a real registry (Debian's docker-registry, the
// distribution server) on a test host in a network namespace, and images the tests build with
// umoci as OCI layouts and push with skopeo. The Node.js image holds this machine's node, the
// libraries it links and the fixture MCP server (tests/fixtures/mcp-fixture), nothing else.

const run = promisify(execFile);
const PATH = "/usr/sbin:/usr/bin:/sbin:/bin";
const sh = (file: string, args: string[]) => run(file, args, { env: { PATH, HOME: os.tmpdir() }, maxBuffer: 16 * 1024 * 1024 });

/** Why image tests cannot run here, or null. */
export async function imageToolsMissing(): Promise<string | null> {
  const hosts = await canCreateTestHosts();
  if (hosts) return hosts;
  for (const bin of ["skopeo", "umoci", "docker-registry", "bwrap", "python3", "socat"]) {
    try {
      await run("sh", ["-c", `command -v ${bin}`], { env: { PATH } });
    } catch {
      return `needs ${bin} (apt-get install skopeo umoci docker-registry bubblewrap socat)`;
    }
  }
  return null;
}

export interface ImageRegistry {
  /** host:port, as image references name it */
  host: string;
  /** pushes `layout:tag` as `<name>:<pushTag>`; resolves with the manifest's digest */
  push(layout: string, tag: string, name: string, pushTag?: string): Promise<string>;
  /** the registry's blob files (to corrupt one) */
  blobFile(digest: string): string;
  close(): Promise<void>;
}

/** `auth`: the registry asks for this user and password (HTTP basic, an htpasswd file with a bcrypt hash). */
export async function startImageRegistry(opts: {
  address: string;
  port: number;
  auth?: { user: string; password: string };
}): Promise<ImageRegistry> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "test-registry-"));
  const storage = path.join(dir, "storage");
  const cfg = path.join(dir, "config.yml");
  let auth = "";
  if (opts.auth) {
    const htpasswd = path.join(dir, "htpasswd");
    const { stdout } = await run("python3", [
      "-W",
      "ignore",
      "-c",
      "import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH)))",
      opts.auth.password,
    ]);
    await fs.writeFile(htpasswd, `${opts.auth.user}:${stdout.trim()}\n`);
    auth = `auth:\n  htpasswd:\n    realm: test-registry\n    path: ${htpasswd}\n`;
  }
  await fs.writeFile(
    cfg,
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${storage}\n${auth}http:\n  addr: 0.0.0.0:${opts.port}\n`,
  );
  let hosts: TestHosts | undefined;
  try {
    hosts = await createTestHosts([opts.address], opts.port, { command: ["docker-registry", "serve", cfg] });
  } catch (e) {
    await fs.rm(dir, { recursive: true, force: true });
    throw e;
  }
  const host = `${opts.address}:${opts.port}`;
  const h = hosts;
  return {
    host,
    async push(layout, tag, name, pushTag = tag) {
      const digestFile = path.join(dir, `digest-${Date.now()}-${Math.random()}`);
      await sh("skopeo", [
        "--insecure-policy",
        "copy",
        "--all",
        "--dest-tls-verify=false",
        ...(opts.auth ? ["--dest-creds", `${opts.auth.user}:${opts.auth.password}`] : []),
        "--digestfile",
        digestFile,
        `oci:${layout}:${tag}`,
        `docker://${host}/${name}:${pushTag}`,
      ]);
      return (await fs.readFile(digestFile, "utf8")).trim();
    },
    blobFile: (digest) => path.join(storage, "docker/registry/v2/blobs/sha256", digest.slice(7, 9), digest.slice(7), "data"),
    async close() {
      await h.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export type LayerEntry =
  | { type: "file"; name: string; data: string; mode?: number }
  | { type: "symlink" | "hardlink"; name: string; target: string }
  /** `count` empty files under `name`, a thousand to a folder (a layer bomb) */
  | { type: "many"; name: string; count: number };

// A layer from a list of entries, exactly as given (argv[1]: the tar file, argv[2]: the entries as JSON).
const WRITE_LAYER = `
import io, json, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    for e in json.loads(sys.argv[2]):
        ti = tarfile.TarInfo(e["name"])
        if e["type"] == "many":
            for i in range(e["count"]):
                ti = tarfile.TarInfo("%s/%d/%d" % (e["name"], i // 1000, i % 1000))
                t.addfile(ti, io.BytesIO(b""))
            continue
        if e["type"] == "file":
            data = e["data"].encode()
            ti.size = len(data)
            ti.mode = e.get("mode", 0o644)
            t.addfile(ti, io.BytesIO(data))
        else:
            ti.type = tarfile.SYMTYPE if e["type"] == "symlink" else tarfile.LNKTYPE
            ti.linkname = e["target"]
            t.addfile(ti)
`;

/** An image's configuration as JSON: its `config` holds Env, Entrypoint, Cmd, WorkingDir, ... */
export type ImageConfigJson = { config: Record<string, unknown> } & Record<string, unknown>;
export type ManifestJson = { config: Descriptor; annotations?: Record<string, string> } & Record<string, unknown>;

export interface ImageBuilder {
  /** the OCI layout holding every image built */
  layout: string;
  /**
   * A Node.js image of the fixture server tagged `tag`: `change` edits its root first (as root:
   * set-id bits, device nodes and links survive into the layer), `config` sets umoci config flags.
   */
  build(tag: string, opts?: { change?: (rootfs: string) => Promise<void>; config?: string[] }): Promise<void>;
  /**
   * `tag` plus one layer written entry by entry (Python's tarfile, so the entries can be what no
   * file system would produce: `../` paths, links to host files, whiteouts aimed outside).
   */
  withLayer(tag: string, newTag: string, entries: LayerEntry[]): Promise<void>;
  /**
   * A Python image of tests/fixtures/python-server tagged `tag`: this machine's Debian python3
   * (/usr/bin/python3.N, the libraries it links and its standard library, without tests, docs
   * and tools), the fixture package in /app, run as `python3 -m pyfixture` from there.
   */
  buildPython(tag: string): Promise<void>;
  /** An image index (a multi-arch image) tagged `tag`, of the images `tags` (each with its own architecture). */
  index(tag: string, tags: string[]): Promise<void>;
  /**
   * `tag` with its configuration and manifest edited as JSON, written back byte for byte as the
   * edits leave them (what no tool would write: a NUL in a variable, a 5 MB annotation), tagged `newTag`.
   */
  rewrite(
    tag: string,
    newTag: string,
    edit: { config?: (c: ImageConfigJson) => void; manifest?: (m: ManifestJson) => void },
  ): Promise<void>;
  close(): Promise<void>;
}

/** node and the libraries it links (ldd's answer), copied into `rootfs` at the same paths. */
async function copyNode(rootfs: string): Promise<void> {
  await copyProgram(rootfs, process.execPath);
}

/** A program and the libraries it links (ldd's answer), copied into `rootfs` at the same paths. */
async function copyProgram(rootfs: string, program: string): Promise<void> {
  const { stdout } = await sh("ldd", [program]);
  const libs = [...stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
  for (const f of [program, ...libs]) {
    const dest = path.join(rootfs, f);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    await fs.copyFile(await fs.realpath(f), dest);
    await fs.chmod(dest, 0o755);
  }
}

export async function imageBuilder(): Promise<ImageBuilder> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "test-images-"));
  const layout = path.join(dir, "layout");
  await sh("umoci", ["init", "--layout", layout]);
  await sh("umoci", ["new", "--image", `${layout}:empty`]);
  const base = path.join(dir, "base");
  await sh("umoci", ["unpack", "--image", `${layout}:empty`, base]);
  await copyNode(path.join(base, "rootfs"));
  await fs.mkdir(path.join(base, "rootfs", "app"));
  await fs.copyFile(path.join(projectRoot, "tests/fixtures/mcp-fixture/server.js"), path.join(base, "rootfs", "app", "server.js"));
  await sh("umoci", ["repack", "--image", `${layout}:base`, base]);
  await fs.rm(base, { recursive: true, force: true });
  let n = 0;
  return {
    layout,
    async build(tag, opts = {}) {
      const from = opts.change ? `${tag}-layer` : "base";
      if (opts.change) {
        const bundle = path.join(dir, `bundle-${++n}`);
        await sh("umoci", ["unpack", "--image", `${layout}:base`, bundle]);
        await opts.change(path.join(bundle, "rootfs"));
        await sh("umoci", ["repack", "--image", `${layout}:${from}`, bundle]);
        await fs.rm(bundle, { recursive: true, force: true });
      }
      await sh("umoci", [
        "config",
        "--image",
        `${layout}:${from}`,
        "--tag",
        tag,
        "--config.entrypoint",
        "/usr/bin/node",
        "--config.cmd",
        "/app/server.js",
        "--config.workingdir",
        "/app",
        "--config.env",
        "PATH=/usr/bin:/bin",
        "--config.env",
        "FIXTURE_IMAGE=node",
        ...(opts.config ?? []),
      ]);
    },
    async buildPython(tag) {
      const { stdout } = await sh("python3", [
        "-c",
        "import sys, sysconfig; print(sys.executable); print(sysconfig.get_paths()['stdlib'])",
      ]);
      const [python, stdlib] = stdout.trim().split("\n") as [string, string];
      const bundle = path.join(dir, `bundle-${++n}`);
      await sh("umoci", ["unpack", "--image", `${layout}:empty`, bundle]);
      const rootfs = path.join(bundle, "rootfs");
      const real = await fs.realpath(python);
      await copyProgram(rootfs, real);
      const SKIP = new Set([
        "test",
        "idlelib",
        "tkinter",
        "turtledemo",
        "ensurepip",
        "lib2to3",
        "__pycache__",
        "pydoc_data",
        "site-packages",
        "dist-packages",
      ]);
      await fs.cp(stdlib, path.join(rootfs, stdlib), {
        recursive: true,
        filter: (src) => !SKIP.has(path.basename(src)) && !path.basename(src).startsWith("config-"),
      });
      await fs.cp(path.join(projectRoot, "tests/fixtures/python-server/pyfixture"), path.join(rootfs, "app/pyfixture"), {
        recursive: true,
      });
      await sh("umoci", ["repack", "--image", `${layout}:python-base`, bundle]);
      await fs.rm(bundle, { recursive: true, force: true });
      await sh("umoci", [
        "config",
        "--image",
        `${layout}:python-base`,
        "--tag",
        tag,
        "--config.entrypoint",
        real,
        "--config.cmd",
        "-m",
        "--config.cmd",
        "pyfixture",
        "--config.workingdir",
        "/app",
        "--config.env",
        "PATH=/usr/bin:/bin",
        "--config.env",
        "FIXTURE_IMAGE=python",
      ]);
    },
    async withLayer(tag, newTag, entries) {
      const tar = path.join(dir, `layer-${++n}.tar`);
      await sh("python3", ["-c", WRITE_LAYER, tar, JSON.stringify(entries)]);
      await sh("umoci", ["raw", "add-layer", "--image", `${layout}:${tag}`, "--tag", newTag, tar]);
    },
    async index(tag, tags) {
      const indexFile = path.join(layout, "index.json");
      const top = JSON.parse(await fs.readFile(indexFile, "utf8")) as { manifests: Descriptor[] };
      const blob = async (digest: string) => JSON.parse(await fs.readFile(path.join(layout, "blobs/sha256", digest.slice(7)), "utf8"));
      const manifests = [];
      for (const t of tags) {
        const d = top.manifests.find((m) => m.annotations?.["org.opencontainers.image.ref.name"] === t)!;
        const config = (await blob(((await blob(d.digest)) as { config: Descriptor }).config.digest)) as {
          os: string;
          architecture: string;
        };
        manifests.push({
          mediaType: d.mediaType,
          digest: d.digest,
          size: d.size,
          platform: { os: config.os, architecture: config.architecture },
        });
      }
      const body = JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests });
      const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
      await fs.writeFile(path.join(layout, "blobs/sha256", digest.slice(7)), body);
      top.manifests.push({
        mediaType: "application/vnd.oci.image.index.v1+json",
        digest,
        size: Buffer.byteLength(body),
        annotations: { "org.opencontainers.image.ref.name": tag },
      });
      await fs.writeFile(indexFile, JSON.stringify(top));
    },
    async rewrite(tag, newTag, edit) {
      const indexFile = path.join(layout, "index.json");
      const top = JSON.parse(await fs.readFile(indexFile, "utf8")) as { manifests: Descriptor[] };
      const read = async (digest: string) => JSON.parse(await fs.readFile(path.join(layout, "blobs/sha256", digest.slice(7)), "utf8"));
      const write = async (value: unknown) => {
        const body = JSON.stringify(value);
        const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
        await fs.writeFile(path.join(layout, "blobs/sha256", digest.slice(7)), body);
        return { digest, size: Buffer.byteLength(body) };
      };
      const d = top.manifests.find((m) => m.annotations?.["org.opencontainers.image.ref.name"] === tag)!;
      const manifest = (await read(d.digest)) as ManifestJson;
      const config = (await read(manifest.config.digest)) as ImageConfigJson;
      edit.config?.(config);
      manifest.config = { ...manifest.config, ...(await write(config)) };
      edit.manifest?.(manifest);
      const written = await write(manifest);
      top.manifests.push({ mediaType: d.mediaType, ...written, annotations: { "org.opencontainers.image.ref.name": newTag } });
      await fs.writeFile(indexFile, JSON.stringify(top));
    },
    async close() {
      if (existsSync(dir)) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A registry of the test's own (tests/fixtures/hostile-registry) on a test host, serving `layout`
 * exactly as it is: a manifest over the 4 MB the distribution server takes, say. Images are named
 * `<host>/<any name>:<tag in the layout>`.
 */
export async function startHostileRegistry(opts: {
  address: string;
  port: number;
  layout: string;
}): Promise<{ host: string; close(): Promise<void> }> {
  const script = path.join(projectRoot, "tests/fixtures/hostile-registry/server.mjs");
  const hosts = await createTestHosts([opts.address], opts.port, { command: [process.execPath, script, opts.layout, String(opts.port)] });
  return { host: `${opts.address}:${opts.port}`, close: () => hosts.close() };
}
