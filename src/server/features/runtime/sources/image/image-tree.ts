// An unpacked image's files, read and confined by the platform (image-cache.ts pulls and unpacks):
// its configuration from the OCI layout, read by digest without following links; the tree walked
// without following links (set-id bits, special files, size and file count); the sandbox's mount
// points made real inside it; and the record a pulled image keeps beside its tree.
import fs, { constants } from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { escapeControl } from "../../process/lines.js";
import { InstallError, sealOnce, sealTree } from "../package-files.js";
import { ENV_NAME } from "../../sandbox/bwrap.js";

/** PATH inside an image whose configuration sets none (docker's default). */
export const IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** Where a deployment's own volume appears inside an image's root (HOME points there). */
export const IMAGE_VOLUME = "/data";

export const IMAGE_TEXT = {
  otherArch: (image: string, arch: string, have: string) =>
    `The image ${image} is built for ${arch}; this machine runs ${have}, so it cannot run here`,
  noCommand: (image: string) => `The image ${image} names no command to run (no Entrypoint or Cmd)`,
  // The disk watch's words too (package-files.ts), whichever of the two sees it first.
  tooLarge: (image: string, mb: number) => `The image ${image} is larger than the ${mb} MB a deployment may use`,
  tooManyFiles: (image: string, max: number) => `The image ${image} holds more than ${max} files`,
  pullFailed: (image: string, why: string) => `Could not pull the image ${image}: ${why}`,
  noTools: (missing: string[]) =>
    `Container images cannot run on this machine: ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not installed (apt-get install skopeo umoci)`,
  manifestTooLarge: (image: string, what: string) => `The image ${image} has a ${what} larger than 4 MB, which no registry serves`,
  envLeftOut: (entries: string[]) =>
    `[switchboard] left out the image's environment entries that are not NAME=value with a name of letters, digits and underscores: ${entries.map((e) => `"${shown(e)}"`).join(", ")}`,
  envNul: (image: string, name: string) => `The image ${image} sets ${shown(name)} to a value with a NUL character`,
  envTooLarge: (image: string) =>
    `The image ${image} sets more than ${IMAGE_LIMITS.envEntries} environment variables, or more than ${IMAGE_LIMITS.envBytes / 1024} KB of them (${IMAGE_LIMITS.envValueBytes / 1024} KB each at most)`,
  badCommand: (image: string, field: string) => `The image ${image} has a ${field} that is not a list of strings without NUL characters`,
  commandTooLarge: (image: string) =>
    `The image ${image} has a command (Entrypoint and Cmd) of more than ${IMAGE_LIMITS.args} arguments or ${IMAGE_LIMITS.argsBytes / 1024} KB`,
  badWorkingDir: (image: string) => `The image ${image} names a working directory that is not a path (WorkingDir)`,
} as const;

/** What of an image's configuration a deployment takes, at most. */
export const IMAGE_LIMITS = {
  envEntries: 256,
  envValueBytes: 32 * 1024,
  envBytes: 128 * 1024,
  args: 256,
  argsBytes: 128 * 1024,
  pathBytes: 4096,
} as const;

/** A tenant's text in a status: one line, no control characters, short. */
const shown = (s: string) => escapeControl(s).slice(0, 100);

/** Mount points the sandbox binds over inside an image's root (made real folders and files, never links). */
const MOUNT_DIRS = ["proc", "dev", "tmp", "etc", IMAGE_VOLUME.slice(1)];
const MOUNT_FILES = ["etc/passwd", "etc/group", "etc/resolv.conf"];

export interface ImageConfig {
  architecture?: string;
  os?: string;
  /** as the registry gave it: every field is the image author's, checked by runConfig before use */
  config?: { Entrypoint?: unknown; Cmd?: unknown; Env?: unknown; WorkingDir?: unknown };
}

/** What a deployment of an image runs: its command, environment and working directory. */
export interface RunConfig {
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  /** WorkingDir ("/" when none); bubblewrap changes into it inside the sandbox */
  cwd: string;
  /** Env entries that are not NAME=value with a POSIX name: not passed on, and the owner is told (their start) */
  envLeftOut?: string[];
}

const bytes = (s: string) => Buffer.byteLength(s);

/** A list of strings (null or absent: none), each without NUL; else the image is refused. */
function stringList(v: unknown, image: string, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x): x is string => typeof x === "string" && !x.includes("\0")))
    throw new InstallError(IMAGE_TEXT.badCommand(image, field));
  return v;
}

/**
 * The only fields of an image's configuration the platform takes, each checked and bounded:
 * Entrypoint and Cmd (the command, run inside the sandbox), Env (POSIX names, set inside the
 * sandbox only, never on a host process; other names are left out) and WorkingDir (an absolute path inside the image, made
 * so lexically; bubblewrap enters it inside). User, Volumes, ExposedPorts, Labels and the rest
 * are never read: the platform decides who the server runs as and what it mounts.
 */
export function runConfig(c: ImageConfig["config"], image: string): RunConfig {
  const entrypoint = stringList(c?.Entrypoint, image, "Entrypoint");
  const cmd = stringList(c?.Cmd, image, "Cmd");
  const command = [...entrypoint, ...cmd];
  if (command.length > IMAGE_LIMITS.args || command.reduce((n, a) => n + bytes(a) + 1, 0) > IMAGE_LIMITS.argsBytes)
    throw new InstallError(IMAGE_TEXT.commandTooLarge(image));
  if (c?.Env !== undefined && c.Env !== null && (!Array.isArray(c.Env) || !c.Env.every((e) => typeof e === "string")))
    throw new InstallError(IMAGE_TEXT.badCommand(image, "Env"));
  const list = (c?.Env ?? []) as string[];
  if (list.length > IMAGE_LIMITS.envEntries) throw new InstallError(IMAGE_TEXT.envTooLarge(image));
  const env: Record<string, string> = {};
  const leftOut: string[] = [];
  let total = 0;
  for (const kv of list) {
    const i = kv.indexOf("=");
    // A NUL would end one argument of bubblewrap's descriptor and begin another: refused, never passed on.
    if (kv.includes("\0")) throw new InstallError(IMAGE_TEXT.envNul(image, i > 0 ? kv.slice(0, i) : kv));
    total += bytes(kv) + 1;
    if (bytes(kv) - i - 1 > IMAGE_LIMITS.envValueBytes || total > IMAGE_LIMITS.envBytes)
      throw new InstallError(IMAGE_TEXT.envTooLarge(image));
    const name = i > 0 ? kv.slice(0, i) : "";
    // Docker passes any name on; a shell cannot read one that is not a POSIX name. Left out, and the owner is told.
    if (!ENV_NAME.test(name) || name.length > 128) {
      leftOut.push(kv);
      continue;
    }
    env[name] = kv.slice(i + 1);
  }
  const wd = c?.WorkingDir;
  if (wd !== undefined && wd !== null && (typeof wd !== "string" || wd.includes("\0") || bytes(wd) > IMAGE_LIMITS.pathBytes))
    throw new InstallError(IMAGE_TEXT.badWorkingDir(image));
  // Relative (`../..`) or empty: the image's root, as docker reads it; absolute: normalized, never above `/`.
  const cwd = typeof wd === "string" && path.posix.isAbsolute(wd) ? path.posix.normalize(wd) : "/";
  return { entrypoint, cmd, env, cwd, ...(leftOut.length ? { envLeftOut: leftOut.map((e) => e.slice(0, 100)) } : {}) };
}

/** The largest manifest or configuration read, as registries cap them. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** JSON of a registry document the platform reads (a manifest, a configuration): size checked before it is parsed. */
export function registryJson(text: Buffer | string, image: string, what: string): Record<string, unknown> {
  if (Buffer.byteLength(text) > MAX_MANIFEST_BYTES) throw new InstallError(IMAGE_TEXT.manifestTooLarge(image, what));
  let v: unknown;
  try {
    v = JSON.parse(text.toString());
  } catch {
    throw new InstallError(`The image ${image} has a ${what} that is not valid JSON`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new InstallError(`The image ${image} has a ${what} that is not a JSON object`);
  return v as Record<string, unknown>;
}

/** The image's configuration, from the OCI layout skopeo wrote: index -> manifest -> config, each read by its digest, none over 4 MB. */
export async function readLayoutConfig(layout: string, image: string): Promise<ImageConfig> {
  const json = async (file: string, what: string) => {
    const fh = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if ((await fh.stat()).size > MAX_MANIFEST_BYTES) throw new InstallError(IMAGE_TEXT.manifestTooLarge(image, what));
      return registryJson(await fh.readFile(), image, what);
    } finally {
      await fh.close();
    }
  };
  const blob = (digest: unknown, what: string) => {
    if (typeof digest !== "string" || !/^sha256:[a-f0-9]{64}$/.test(digest))
      throw new InstallError(`The image ${image} has a malformed ${what}`);
    return json(path.join(layout, "blobs", "sha256", digest.slice(7)), what);
  };
  const index = (await json(path.join(layout, "index.json"), "manifest")) as { manifests?: { digest?: string }[] };
  const manifest = await blob(index.manifests?.[0]?.digest, "manifest");
  return (await blob((manifest.config as { digest?: string } | undefined)?.digest, "configuration")) as ImageConfig;
}

/**
 * Walks the unpacked tree without following a link (sealTree): set-uid, set-gid and sticky bits
 * go, so does any write bit but the owner's (the shared cache is nobody else's to change),
 * anything but a file, a folder or a link goes (device nodes, fifos, sockets), every file becomes
 * readable by the deployments' uids (they run as others than the installer), and the tree's
 * apparent size (a sparse file counts whole), its nesting and its number of files are capped.
 */
export async function confine(root: string, image: string, limitMb: number, maxFiles: number): Promise<void> {
  let size = 0;
  let files = 0;
  await sealTree(root, (e) => {
    if (++files > maxFiles) throw new InstallError(IMAGE_TEXT.tooManyFiles(image, maxFiles));
    if (e.depth > 64) throw new InstallError(`The image ${image} nests folders more than 64 deep`);
    if (e.stat.isSymbolicLink()) return; // resolved inside the sandbox, where this tree is /
    if (!e.stat.isFile() && !e.stat.isDirectory()) {
      fs.rmSync(e.path, { force: true });
      return "skip";
    }
    size += e.stat.size;
    if (size > limitMb * 1024 * 1024) throw new InstallError(IMAGE_TEXT.tooLarge(image, limitMb));
  });
}

/** The sandbox's mount points inside the tree: real folders and empty files, replacing links or anything else there. */
export async function mountPoints(root: string): Promise<void> {
  const st = (p: string) => fsp.lstat(p).catch(() => null);
  for (const d of MOUNT_DIRS) {
    const p = path.join(root, d);
    const s = await st(p);
    if (s?.isDirectory()) continue;
    if (s) await fsp.rm(p, { force: true });
    await fsp.mkdir(p, { mode: 0o755 });
  }
  for (const f of MOUNT_FILES) {
    const p = path.join(root, f);
    const s = await st(p);
    if (s?.isFile()) continue;
    if (s) await fsp.rm(p, { recursive: true, force: true });
    await fsp.writeFile(p, "", { flag: "wx", mode: 0o644 });
  }
}

/** What a deployment of the image runs: its tree and its configuration (checked: image-tree.ts runConfig). */
export interface CachedImage extends RunConfig {
  /** the unpacked tree, bound read-only as `/` */
  root: string;
  digest: string;
}

/** A tree already here, its configuration checked again (a cache an older version wrote is held to today's rules), sealed if it never was. */
export async function readCached(dir: string, name: string): Promise<CachedImage | null> {
  let image: Omit<CachedImage, "root">;
  try {
    image = JSON.parse(await fsp.readFile(path.join(dir, "image.json"), "utf8")) as Omit<CachedImage, "root">;
  } catch {
    return null;
  }
  const env = Object.entries(image.env ?? {}).map(([k, v]) => `${k}=${v}`);
  const checked = runConfig({ Entrypoint: image.entrypoint, Cmd: image.cmd, Env: env, WorkingDir: image.cwd }, name);
  await sealOnce(dir, path.join(dir, "rootfs"));
  return { ...checked, digest: image.digest, root: path.join(dir, "rootfs") };
}

/** The end of a tool's output, for a status: skopeo's and umoci's log lines reduced to their message. */
export const toolMessage = (s: string) =>
  s
    .trim()
    .split("\n")
    .filter((l) => l.trim())
    .slice(-2)
    .map((l) => {
      const m = /level=\w+ msg="((?:[^"\\]|\\.)*)"/.exec(l);
      return m ? m[1]!.replace(/\\"/g, '"') : l;
    })
    .join(" ")
    .slice(0, 500);
