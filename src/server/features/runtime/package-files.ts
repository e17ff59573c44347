import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { escapeControl } from "./lines.js";
import { readTenantJson, tenantPathKind } from "./sandbox/tenant-files.js";

// What the platform reads and sizes of an installed package or a built repository: its entry
// point and server.json (through the no-follow reader), its size, its permissions.

export class InstallError extends Error {}

/** A tenant's text in a status line: one line, no control characters, bounded. */
const shown = (s: string) => escapeControl(s).slice(0, 200);

/** Under a strict umask, makes an installed package readable by every deployment's uid (links are left alone). */
export async function openForReading(dir: string): Promise<void> {
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isSymbolicLink()) continue;
    const st = await fs.lstat(p);
    await fs.chmod(p, (st.mode & 0o7777) | (e.isDirectory() || st.mode & 0o100 ? 0o055 : 0o044));
    if (e.isDirectory()) await openForReading(p);
  }
  const st = await fs.lstat(dir);
  await fs.chmod(dir, (st.mode & 0o7777) | 0o055);
}

/** A tree nested deeper than anything an install makes (a build's attempt to exhaust the platform). */
export const MAX_TREE_DEPTH = 256;
export class TreeTooDeep extends InstallError {}

/**
 * Bytes under a directory, folders included (links counted as themselves, never followed; what
 * vanishes meanwhile counts nothing). Each folder is opened without following links and read
 * through its open descriptor, so a build running meanwhile cannot swap a folder for a link and
 * have the platform walk a host tree; at most MAX_TREE_DEPTH descriptors are open at once, and a
 * deeper tree throws TreeTooDeep.
 */
export async function treeBytes(dir: string, depth = 0, count?: { files: number }): Promise<number> {
  if (depth > MAX_TREE_DEPTH) throw new TreeTooDeep(`folders nested more than ${MAX_TREE_DEPTH} deep`);
  const fh = await fs.open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(() => null);
  if (!fh) return 0;
  try {
    const here = `/proc/self/fd/${fh.fd}`;
    let total = (await fh.stat()).size;
    for (const e of await fs.readdir(here, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(here, e.name);
      if (count) count.files++;
      total += e.isDirectory() ? await treeBytes(p, depth + 1, count) : ((await fs.lstat(p).catch(() => null))?.size ?? 0);
    }
    return total;
  } finally {
    await fh.close();
  }
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
 * install does, or makes more than `maxFiles` files and folders) while it runs, checked every 2 s,
 * one walk at a time: `signal` aborts with the reason; `stop` ends the watch.
 */
export function diskWatch(dir: string, limitMb: number, maxFiles = Infinity): { signal: AbortSignal; stop: () => void } {
  const abort = new AbortController();
  let walking = false;
  const timer = setInterval(() => {
    if (walking || abort.signal.aborted) return;
    walking = true;
    const count = { files: 0 };
    void treeBytes(dir, 0, count)
      .then(
        (b) => {
          if (b > limitMb * 1024 * 1024) abort.abort(new WatchStop(true, `it wrote more than ${limitMb} MB`));
          else if (count.files > maxFiles) abort.abort(new WatchStop(false, `it made more than ${maxFiles} files`, true));
        },
        (e: unknown) => {
          if (e instanceof TreeTooDeep) abort.abort(new WatchStop(false, `it made ${e.message}`));
        },
      )
      .finally(() => (walking = false));
  }, 2000);
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
