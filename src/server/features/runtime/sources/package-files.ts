import fs from "node:fs";
import path from "node:path";
import { escapeControl } from "../process/lines.js";
import { readTenantJson, tenantPathKind } from "../sandbox/tenant-files.js";
import { TreeTooDeep as WalkTooDeep, walkTree, type TreeEntry } from "../sandbox/tree-walk.js";

// What the platform reads and sizes of an installed package or a built repository: its entry
// point and server.json (through the no-follow reader), its size, its permissions.

export class InstallError extends Error {}

/** A tenant's text in a status line: one line, no control characters, bounded. */
const shown = (s: string) => escapeControl(s).slice(0, 200);

/** A tree nested deeper than anything an install makes (a build's attempt to exhaust the platform). */
export const MAX_TREE_DEPTH = 256;
export class TreeTooDeep extends InstallError {}

/** The mode an entry of a shared cache gets: readable by all, writable by its owner alone (who may always read and write it), no set-id or sticky bit. */
export function sealedMode(mode: number, isDir: boolean): number {
  return (mode & 0o755) | 0o644 | (isDir || mode & 0o100 ? 0o111 : 0);
}

/** Linux's O_PATH: a descriptor that names an inode without opening it (Node has no constant for it). */
const O_PATH = 0o10000000;

/**
 * chmod of the very entry walked, never of what a link swapped in since would point to: the
 * entry is named by an O_PATH descriptor opened without following links, checked to be the same
 * inode, and changed through that descriptor.
 */
function chmodEntry(p: string, st: fs.Stats, mode: number): void {
  const fd = fs.openSync(p, O_PATH | fs.constants.O_NOFOLLOW);
  try {
    const now = fs.fstatSync(fd);
    if (now.ino !== st.ino || now.dev !== st.dev || !(now.isFile() || now.isDirectory())) return;
    fs.chmodSync(`/proc/self/fd/${fd}`, mode);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Seals a tree the shared caches keep (an npm package, a Python environment, an image's files):
 * readable by every deployment's uid (they run as others than the installer), writable by its
 * owner alone (no group or world write, whatever the package or image asked for), and no set-uid,
 * set-gid or sticky bit, the root included. Links are left alone (never followed); `visit` sees
 * each entry first and may refuse it (throw) or remove it ("skip"). Returns the entries seen.
 */
export async function sealTree(dir: string, visit?: (e: TreeEntry) => void | "skip"): Promise<number> {
  let n = 0;
  const seal = (p: string, st: fs.Stats) => {
    const want = sealedMode(st.mode, st.isDirectory());
    if ((st.mode & 0o7777) !== want) chmodEntry(p, st, want);
  };
  await walkTree(
    dir,
    (e) => {
      n++;
      const v = visit?.(e);
      if (v === "skip" || e.stat.isSymbolicLink() || (!e.stat.isFile() && !e.stat.isDirectory())) return v;
      seal(e.path, e.stat);
      return v;
    },
    MAX_TREE_DEPTH,
  ).catch((e: unknown) => {
    throw e instanceof WalkTooDeep ? new TreeTooDeep(e.message) : e;
  });
  const top = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (top?.isDirectory()) seal(dir, top);
  return n;
}

/** Where the platform notes that a cache entry is sealed: a folder of root's beside it, never inside what an install wrote. */
const markerOf = (entry: string) => path.join(path.dirname(entry), ".sealed", path.basename(entry));

/** The platform's note that `entry` (a cache's folder, under its final name) is sealed. */
export async function markSealed(entry: string): Promise<void> {
  const marker = markerOf(entry);
  await fs.promises.mkdir(path.dirname(marker), { recursive: true, mode: 0o755 });
  await fs.promises.writeFile(marker, "", { flag: "w", mode: 0o644 });
}

/** Entries sealed by this process, or found sealed, and the seals under way. */
const sealing = new Map<string, Promise<void>>();

/**
 * A cache entry an older version of the platform kept without sealing it is sealed (sealTree on
 * `tree`: the entry itself, or an image's root inside it) on its next use, once however many
 * deployments start from it at the same time.
 */
export function sealOnce(entry: string, tree = entry): Promise<void> {
  let p = sealing.get(entry);
  if (!p) {
    p = (async () => {
      if (fs.existsSync(markerOf(entry))) return;
      await sealTree(tree);
      await markSealed(entry);
    })();
    p.catch(() => sealing.delete(entry));
    sealing.set(entry, p);
  }
  return p;
}

/**
 * Bytes under a directory, folders included (links counted as themselves, never followed; what
 * vanishes meanwhile counts nothing), walked by walkTree: a build running meanwhile cannot lead it
 * into a host tree, and a deeper tree than MAX_TREE_DEPTH throws TreeTooDeep.
 */
export async function treeBytes(dir: string, count?: { files: number }): Promise<number> {
  const top = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!top?.isDirectory()) return 0;
  let total = top.size;
  await walkTree(
    dir,
    (e) => {
      if (count) count.files++;
      total += e.stat.size;
    },
    MAX_TREE_DEPTH,
  ).catch((e: unknown) => {
    throw e instanceof WalkTooDeep ? new TreeTooDeep(e.message) : e;
  });
  return total;
}

/** Why the disk watch stopped an install: too much written, or something no install does. */
export class WatchStop {
  constructor(
    readonly tooLarge: boolean,
    readonly message: string,
    /** it made more files than the watch allows (an image's layer bomb) */
    readonly tooManyFiles = false,
  ) {}

  toString(): string {
    return this.message;
  }

  /** The owner's words for it: `what` ("The npm package x@1.0.0") and the deployment's limit. */
  explain(what: string, diskMb: number): string {
    return this.tooLarge
      ? `${what} is larger than the ${diskMb} MB a deployment may use (${this.message} while installing)`
      : `${what} was stopped while installing: ${this.message}`;
  }
}

/**
 * Stops an install that writes more than `limitMb` under `dir` (or nests folders deeper than any
 * install does, or makes more than `maxFiles` files and folders) while it runs, checked every
 * second, one walk at a time: `signal` aborts with the reason; `stop` ends the watch.
 */
export function diskWatch(dir: string, limitMb: number, maxFiles = Infinity): { signal: AbortSignal; stop: () => void } {
  const abort = new AbortController();
  let walking = false;
  const timer = setInterval(() => {
    if (walking || abort.signal.aborted) return;
    walking = true;
    const count = { files: 0 };
    void treeBytes(dir, count)
      .then(
        (b) => {
          if (b > limitMb * 1024 * 1024) abort.abort(new WatchStop(true, `it wrote more than ${limitMb} MB`));
          else if (count.files > maxFiles) abort.abort(new WatchStop(false, `it made more than ${maxFiles} files`, true));
        },
        (e: unknown) => {
          // A tree the platform cannot measure (a folder it may not open) is not one it keeps.
          if (e instanceof TreeTooDeep) abort.abort(new WatchStop(false, `it made ${e.message}`));
          else abort.abort(new WatchStop(false, `what it wrote could not be measured (${(e as NodeJS.ErrnoException).code ?? "error"})`));
        },
      )
      .finally(() => (walking = false));
  }, 1000);
  return { signal: abort.signal, stop: () => clearInterval(timer) };
}

/** The highest of some versions, comparing their numbers (what an offline fallback needs, not all of semver or PEP 440). */
export function newest(versions: string[]): string | undefined {
  return [...versions].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
}

export function cacheName(name: string): string {
  return name.replace("/", "+");
}

type PackageJson = { name?: string; bin?: string | Record<string, string>; main?: string; scripts?: Record<string, string> };

/** package.json `bin` (the one named like the package, or the only one), else a `node <file>` start script, else `main`. */
export async function entryPoint(dir: string, packageName: string | null): Promise<string> {
  const pkg = (await readTenantJson<PackageJson>(dir, "package.json")) ?? {};
  let rel: unknown;
  if (typeof pkg.bin === "string") rel = pkg.bin;
  else if (pkg.bin && typeof pkg.bin === "object") {
    const base = (packageName ?? pkg.name ?? "").split("/").pop()!;
    const names = Object.keys(pkg.bin);
    rel = pkg.bin[base] ?? (names.length ? pkg.bin[names[0]!] : undefined);
  }
  const start = /^node\s+([\w./-]+)\s*$/.exec(typeof pkg.scripts?.start === "string" ? pkg.scripts.start : "");
  rel ??= start?.[1] ?? pkg.main;
  if (typeof rel !== "string" || !rel)
    throw new InstallError("Nothing to run: package.json has no bin, no `node <file>` start script and no main");
  const entry = path.resolve(dir, rel);
  if (!entry.startsWith(dir + path.sep)) throw new InstallError(`The entry point ${shown(rel)} lies outside the package`);
  // Looked at without following links: a link is resolved by the sandbox, where it can only reach the sandbox's files.
  const kind = await tenantPathKind(dir, path.relative(dir, entry));
  if (kind === "missing" || kind === "other") throw new InstallError(`The entry point ${shown(rel)} does not exist in the package`);
  return entry;
}

/** A server.json in the repository: its npm package's fixed positional arguments are honoured. */
export async function serverJsonArgs(app: string): Promise<string[]> {
  const sj = await readTenantJson<{ packages?: { packageArguments?: { type?: string; value?: string }[] }[] }>(app, "server.json");
  const list = sj?.packages?.[0]?.packageArguments;
  return (Array.isArray(list) ? list : []).filter((a) => a?.type === "positional" && typeof a.value === "string").map((a) => a.value!);
}
