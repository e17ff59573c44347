// The shared cache of container images: each image pulled once per digest and architecture, by
// skopeo (the registry protocol: token flow for anonymous pulls, manifest lists resolved for this
// machine, every blob checked against its sha256) and unpacked by umoci (layers applied in order,
// whiteouts, links kept inside the root, rootless: every file owned by the installer's uid, no
// device nodes), both in the installer's sandbox (its uid, its network egress rules: the registry
// is a tenant's choice). The platform then walks the tree without following any link: set-id bits
// go, anything but files, folders and links goes, and its size is capped. Deployments of that
// digest share the tree read-only as their `/`; a tag is resolved to a digest once an hour.
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { imageName, parseImageRef, type ImageRef } from "./docker.js";
import { installEnv } from "../install-env.js";
import { registryAuth } from "./image-auth.js";
import {
  confine,
  IMAGE_TEXT,
  MAX_MANIFEST_BYTES,
  mountPoints,
  readCached,
  readLayoutConfig,
  registryJson,
  runConfig,
  toolMessage as lastLine,
  type CachedImage,
} from "./image-tree.js";

export { IMAGE_PATH, IMAGE_TEXT, IMAGE_VOLUME, type CachedImage } from "./image-tree.js";
import { diskWatch, InstallError, markSealed, type WatchStop } from "../package-files.js";
import { SANDBOX_PATH } from "../../sandbox/bwrap.js";
import { StepError } from "../../sandbox/index.js";
import type { CacheOptions } from "../cache-options.js";
import { removeTree } from "../../sandbox/tenant-files.js";

/** The caches' options (DEPLOY_DISK_MB also caps an image's download and tree), and: */
export interface ImageCacheOptions extends CacheOptions {
  /** registries (host:port) reached over plain HTTP or without TLS verification: IMAGE_INSECURE_REGISTRIES, an operator's setting */
  insecureRegistries: string[];
  /** IMAGE_REGISTRY_AUTH_FILE: the operator's credentials for private registries (null: none) */
  registryAuthFile: string | null;
  /** IMAGE_MAX_FILES: an image's files and folders, at most (a layer bomb is stopped while it unpacks) */
  maxFiles: number;
}

const TAG_TTL_MS = 60 * 60 * 1000;
const TOOLS = ["skopeo", "umoci"];
/** Whether the sandbox's PATH has the program (the host's /usr is what the installer's sandbox sees). */
const onPath = (bin: string) => SANDBOX_PATH.split(":").some((d) => existsSync(path.join(d, bin)));

/** This machine's architecture as images name it. */
export function imageArch(): string {
  return process.arch === "x64" ? "amd64" : process.arch === "arm64" ? "arm64" : process.arch;
}

export class ImageCache {
  private readonly locks = new Map<string, Promise<CachedImage>>();
  private readonly tags = new Map<string, { digest: string; at: number }>();
  /** the manifest a tag's resolve just read, for the pull that follows (no second request for it) */
  private readonly raws = new Map<string, Buffer>();

  constructor(private readonly o: ImageCacheOptions) {}

  private get dir(): string {
    return path.join(this.o.packagesDir, "images");
  }

  /** The image, pulled and unpacked when this digest is not here yet. */
  async ensure(image: string): Promise<CachedImage> {
    const ref = parseImageRef(image);
    if (!ref) throw new InstallError(`Invalid image reference "${image}"`);
    const missing = TOOLS.filter((t) => !onPath(t));
    if (missing.length) throw new InstallError(IMAGE_TEXT.noTools(missing));
    const digest = ref.digest ?? (await this.resolveTag(ref));
    const arch = imageArch();
    const dir = path.join(this.dir, `${digest.replace(":", "-")}-${arch}`);
    const done = await readCached(dir, imageName(ref));
    if (done) {
      this.raws.delete(digest);
      return done;
    }
    let p = this.locks.get(dir);
    if (!p) {
      p = this.pull({ ...ref, digest }, imageName(ref), arch, dir).finally(() => this.locks.delete(dir));
      this.locks.set(dir, p);
    }
    return p;
  }

  private tls(ref: ImageRef, flag: "--tls-verify" | "--src-tls-verify"): string[] {
    return this.o.insecureRegistries.includes(ref.registry) ? [`${flag}=false`] : [];
  }

  /** A tag's digest (the digest of its manifest or manifest list), asked of the registry at most once an hour. */
  private async resolveTag(ref: ImageRef): Promise<string> {
    const name = imageName(ref);
    const known = this.tags.get(name);
    if (known && Date.now() - known.at < TAG_TTL_MS) return known.digest;
    const raw = await this.rawManifest(ref, `docker://${name}`, name);
    const digest = `sha256:${createHash("sha256").update(raw).digest("hex")}`;
    this.tags.set(name, { digest, at: Date.now() });
    if (this.raws.size > 16) this.raws.clear();
    this.raws.set(digest, raw);
    return digest;
  }

  /**
   * The manifest (or index) the registry serves, as it is, by skopeo in the installer's sandbox:
   * at most 4 MB, as registries cap them, or the pull stops here. Its sizes are checked before
   * anything reads the rest: a manifest an index points to and a configuration over 4 MB are
   * refused before they are downloaded.
   */
  private async rawManifest(ref: ImageRef, source: string, name: string, work?: { dir: string; signal: AbortSignal }): Promise<Buffer> {
    const raw = await this.skopeo(
      ["inspect", "--raw", "--retry-times", "1", ...this.tls(ref, "--tls-verify"), source],
      name,
      work ?? null,
      { registry: ref.registry, flag: "--authfile" },
      MAX_MANIFEST_BYTES,
    );
    return raw;
  }

  /** The sizes a manifest names, checked (an index: this machine's manifest in it, then that manifest's own). */
  private async checkSizes(ref: ImageRef & { digest: string }, name: string, arch: string, work: { dir: string; signal: AbortSignal }) {
    const source = (digest: string) => `docker://${ref.registry}/${ref.repository}@${digest}`;
    const raw = this.raws.get(ref.digest) ?? (await this.rawManifest(ref, source(ref.digest), name, work));
    this.raws.delete(ref.digest);
    const top = registryJson(raw, name, "manifest");
    if (top.schemaVersion === 1)
      throw new InstallError(`The image ${name} has a schema 1 manifest, which Docker retired in 2019: push it again with a current tool`);
    const size = (d: unknown) => (d && typeof d === "object" ? (d as { size?: unknown }).size : undefined);
    let manifest = top;
    if (Array.isArray(top.manifests)) {
      const mine = (top.manifests as { platform?: { os?: unknown; architecture?: unknown }; digest?: unknown }[]).find(
        (d) => d?.platform?.os === "linux" && d.platform.architecture === arch,
      );
      // None for this machine: skopeo's copy says which there are.
      if (!mine || typeof mine.digest !== "string" || !/^sha256:[a-f0-9]{64}$/.test(mine.digest)) return;
      if (Number(size(mine)) > MAX_MANIFEST_BYTES) throw new InstallError(IMAGE_TEXT.manifestTooLarge(name, "manifest"));
      manifest = registryJson(await this.rawManifest(ref, source(mine.digest), name, work), name, "manifest");
    }
    if (Number(size(manifest.config)) > MAX_MANIFEST_BYTES) throw new InstallError(IMAGE_TEXT.manifestTooLarge(name, "configuration"));
  }

  /**
   * skopeo in the installer's sandbox, with the network; resolves with its stdout when `capture` (its most bytes) is given. `auth`: the
   * registry pulled from, whose entry of the operator's credentials (if any) skopeo is given in a
   * file of the step's own folder, gone with it.
   */
  private async skopeo(
    args: string[],
    image: string,
    work: { dir: string; signal: AbortSignal } | null,
    auth: { registry: string; flag: "--authfile" | "--src-authfile" },
    capture?: number,
  ): Promise<Buffer> {
    const scratch = work?.dir ?? (await this.scratch());
    try {
      const creds = await registryAuth(this.o.registryAuthFile, auth.registry);
      const authArgs: string[] = [];
      if (creds) {
        const file = path.join(scratch, `auth-${randomBytes(4).toString("hex")}.json`);
        await fs.writeFile(file, creds, { flag: "wx", mode: 0o600 });
        const installer = this.o.uids.installer();
        if (installer) await fs.chown(file, installer.uid, installer.gid);
        authArgs.push(auth.flag, file);
      }
      const spec = {
        argv: ["skopeo", "--insecure-policy", args[0]!, ...authArgs, ...args.slice(1)],
        // No one's credentials but the operator's for this registry: HOME is empty, so no other auth file is found.
        env: { ...installEnv(), HOME: scratch, TMPDIR: scratch, XDG_RUNTIME_DIR: scratch },
        cwd: scratch,
        writable: [scratch],
        readOnly: [],
        network: true,
        identity: this.o.uids.installer(),
        limits: this.o.limits,
        label: "image-pull",
      };
      if (capture !== undefined) return await this.o.sandbox.capture(spec, this.o.timeoutMs, capture, work?.signal);
      await this.o.sandbox.run(spec, this.o.timeoutMs, work?.signal);
      return Buffer.alloc(0);
    } catch (e) {
      // Over 4 MB: our own cap on what skopeo prints, or skopeo's on what it reads from the registry.
      if (e instanceof StepError && capture !== undefined && /^its answer was larger than|exceeded maximum allowed size/.test(e.message))
        throw new InstallError(IMAGE_TEXT.manifestTooLarge(image, "manifest"));
      if (e instanceof StepError) throw new InstallError(IMAGE_TEXT.pullFailed(image, lastLine(e.message)));
      throw e;
    } finally {
      if (!work) await removeTree(scratch);
    }
  }

  /** A folder of the installer's own, under the cache (root's above it). */
  private async scratch(): Promise<string> {
    await fs.mkdir(this.dir, { recursive: true });
    const d = path.join(this.dir, `.tmp-${randomBytes(6).toString("hex")}`);
    await fs.mkdir(d, { mode: 0o700 });
    const installer = this.o.uids.installer();
    if (installer) await fs.chown(d, installer.uid, installer.gid);
    return d;
  }

  /** `name`: the image as its owner named it, for messages. */
  private async pull(ref: ImageRef & { digest: string }, name: string, arch: string, dir: string): Promise<CachedImage> {
    const tmp = await this.scratch();
    // Download and tree each within twice the deployment limit while they run; the tree is held to the limit after.
    // A layer bomb is stopped while it unpacks: the watch counts files as well (the download is a few).
    const watch = diskWatch(tmp, 2 * this.o.diskMb, this.o.maxFiles + 100);
    const t = performance.now();
    try {
      const layout = path.join(tmp, "layout");
      await this.checkSizes(ref, name, arch, { dir: tmp, signal: watch.signal });
      const source = `docker://${ref.registry}/${ref.repository}@${ref.digest}`;
      await this.skopeo(
        [
          "copy",
          "--retry-times",
          "1",
          "--override-os",
          "linux",
          "--override-arch",
          arch,
          ...this.tls(ref, "--src-tls-verify"),
          source,
          `oci:${layout}:image`,
        ],
        name,
        { dir: tmp, signal: watch.signal },
        { registry: ref.registry, flag: "--src-authfile" },
      );
      const config = await readLayoutConfig(layout, name);
      const have = `${config.os ?? "?"}/${config.architecture ?? "?"}`;
      if (config.os !== "linux" || config.architecture !== arch) throw new InstallError(IMAGE_TEXT.otherArch(name, have, `linux/${arch}`));
      // Refused before anything is unpacked: an image whose command, environment or folder is not one a deployment takes.
      const image: Omit<CachedImage, "root"> = { digest: ref.digest, ...runConfig(config.config, name) };
      if (image.entrypoint.length + image.cmd.length === 0) throw new InstallError(IMAGE_TEXT.noCommand(name));
      const bundle = path.join(tmp, "bundle");
      try {
        await this.o.sandbox.run(
          {
            argv: ["umoci", "--log", "error", "unpack", "--rootless", "--image", `${layout}:image`, bundle],
            env: { ...installEnv(), HOME: tmp, TMPDIR: tmp },
            cwd: tmp,
            writable: [tmp],
            readOnly: [],
            network: false,
            identity: this.o.uids.installer(),
            limits: this.o.limits,
            label: "image-unpack",
          },
          this.o.timeoutMs,
          watch.signal,
        );
      } catch (e) {
        if (e instanceof StepError) throw new InstallError(`Could not unpack the image ${name}: ${lastLine(e.message)}`);
        throw e;
      }
      const rootfs = path.join(bundle, "rootfs");
      await confine(rootfs, name, this.o.diskMb, this.o.maxFiles);
      await mountPoints(rootfs);
      const staged = path.join(tmp, "image");
      await fs.mkdir(staged, { mode: 0o755 });
      await fs.rename(rootfs, path.join(staged, "rootfs"));
      await fs.chmod(path.join(staged, "rootfs"), 0o755);
      // wx: created here or not at all, never through a link.
      await fs.writeFile(path.join(staged, "image.json"), JSON.stringify(image), { flag: "wx" });
      await fs.rename(staged, dir).catch((e: NodeJS.ErrnoException) => {
        if (!existsSync(path.join(dir, "image.json"))) throw e; // someone else finished first
      });
      // confine sealed the tree: the platform notes it (sealOnce seals a tree an older version kept).
      await markSealed(dir);
      this.o.log.info({ image: name, digest: ref.digest, ms: Math.round(performance.now() - t) }, "image pulled");
      return { ...image, root: path.join(dir, "rootfs") };
    } catch (e) {
      if (watch.signal.aborted) {
        const stop = watch.signal.reason as WatchStop;
        throw new InstallError(
          stop.tooManyFiles ? IMAGE_TEXT.tooManyFiles(name, this.o.maxFiles) : stop.explain(`The image ${name}`, this.o.diskMb),
        );
      }
      throw e;
    } finally {
      watch.stop();
      await removeTree(tmp);
    }
  }
}
