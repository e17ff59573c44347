// An unpacked image's files, read and confined by the platform (image-cache.ts pulls and unpacks):
// its configuration from the OCI layout, read by digest without following links; the tree walked
// without following links (set-id bits, special files, size and file count); the sandbox's mount
// points made real inside it.
import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { InstallError } from "./package-files.js";

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
} as const;

/** Mount points the sandbox binds over inside an image's root (made real folders and files, never links). */
const MOUNT_DIRS = ["proc", "dev", "tmp", "etc", IMAGE_VOLUME.slice(1)];
const MOUNT_FILES = ["etc/passwd", "etc/group", "etc/resolv.conf"];

export interface ImageConfig {
  architecture?: string;
  os?: string;
  config?: { Entrypoint?: string[] | null; Cmd?: string[] | null; Env?: string[] | null; WorkingDir?: string };
}

export const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export function envOf(list: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of list) {
    const i = kv.indexOf("=");
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

/** The image's configuration, from the OCI layout skopeo wrote: index -> manifest -> config, each read by its digest. */
export async function readLayoutConfig(layout: string): Promise<ImageConfig> {
  const json = async (file: string) => {
    const fh = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if ((await fh.stat()).size > 4 * 1024 * 1024) throw new InstallError("The image's manifest is too large");
      return JSON.parse(await fh.readFile("utf8")) as Record<string, unknown>;
    } finally {
      await fh.close();
    }
  };
  const blob = (digest: unknown) => {
    if (typeof digest !== "string" || !/^sha256:[a-f0-9]{64}$/.test(digest)) throw new InstallError("The image's manifest is malformed");
    return json(path.join(layout, "blobs", "sha256", digest.slice(7)));
  };
  const index = (await json(path.join(layout, "index.json"))) as { manifests?: { digest?: string }[] };
  const manifest = await blob(index.manifests?.[0]?.digest);
  return (await blob((manifest.config as { digest?: string } | undefined)?.digest)) as ImageConfig;
}

/**
 * Walks the unpacked tree without following a link: set-uid and set-gid bits go, anything but a
 * file, a folder or a link goes (device nodes, fifos, sockets), every file becomes readable by
 * the deployments' uids (they run as others than the installer), and the tree's apparent size
 * (a sparse file counts whole) and its number of files are capped.
 */
export async function confine(root: string, image: string, limitMb: number, maxFiles: number): Promise<void> {
  let bytes = 0;
  let files = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 64) throw new InstallError(`The image ${image} nests folders more than 64 deep`);
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (++files > maxFiles) throw new InstallError(IMAGE_TEXT.tooManyFiles(image, maxFiles));
      const st = await fs.lstat(p);
      if (st.isSymbolicLink()) continue; // resolved inside the sandbox, where this tree is /
      if (!st.isFile() && !st.isDirectory()) {
        await fs.rm(p, { force: true });
        continue;
      }
      bytes += st.size;
      if (bytes > limitMb * 1024 * 1024) throw new InstallError(IMAGE_TEXT.tooLarge(image, limitMb));
      const mode = st.mode & 0o7777;
      // No set-id bit, and others may read (and enter, or run what its owner may run).
      const want = (mode & ~0o6000) | 0o004 | (st.isDirectory() || mode & 0o100 ? 0o001 : 0);
      if (want !== mode) await fs.chmod(p, want);
      if (st.isDirectory()) await walk(p, depth + 1);
    }
  };
  await fs.chmod(root, 0o755);
  await walk(root, 0);
}

/** The sandbox's mount points inside the tree: real folders and empty files, replacing links or anything else there. */
export async function mountPoints(root: string): Promise<void> {
  const st = (p: string) => fs.lstat(p).catch(() => null);
  for (const d of MOUNT_DIRS) {
    const p = path.join(root, d);
    const s = await st(p);
    if (s?.isDirectory()) continue;
    if (s) await fs.rm(p, { force: true });
    await fs.mkdir(p, { mode: 0o755 });
  }
  for (const f of MOUNT_FILES) {
    const p = path.join(root, f);
    const s = await st(p);
    if (s?.isFile()) continue;
    if (s) await fs.rm(p, { recursive: true, force: true });
    await fs.writeFile(p, "", { flag: "wx", mode: 0o644 });
  }
}
