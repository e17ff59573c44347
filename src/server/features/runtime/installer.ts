import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../../log.js";
import { assertPublicGitHost, parseGitUrl } from "./git-url.js";
import { bwrapArgs, type SandboxInfo } from "./sandbox.js";

// Turns a deployment's source into a command to run. npm packages are installed once per
// name@version into a shared cache (without running any install scripts) and reused; a git
// repository is cloned into the deployment's own directory and built there, inside the sandbox.

export type Source = { kind: "npm"; package: string; version: string | null; args: string[] } | { kind: "git"; url: string; args: string[] };

export interface Prepared {
  /** node and its arguments: the server's entry point and args */
  argv: string[];
  workDir: string;
  readOnly: string[];
}

export interface InstallerOptions {
  packagesDir: string;
  deploymentsDir: string;
  sandbox: SandboxInfo;
  allowFileGit: boolean;
  timeoutMs: number;
  memoryMb: number;
  log: Logger;
}

const PATH = "/usr/local/bin:/usr/bin:/bin";
const TAG_TTL_MS = 60 * 60 * 1000;
const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export class InstallError extends Error {}

function exec(file: string, args: string[], opts: { cwd?: string; env: Record<string, string>; timeoutMs: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: "SIGKILL" }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const tail = String(stderr || stdout).trim().split("\n").slice(-6).join("\n");
      reject(new InstallError(`${path.basename(file)} ${args[0]} failed${(err as { killed?: boolean }).killed ? " (timed out)" : ""}: ${tail}`));
    });
  });
}

export class Installer {
  private readonly locks = new Map<string, Promise<string>>();
  private readonly tags = new Map<string, { version: string; at: number }>();

  constructor(private readonly o: InstallerOptions) {}

  private npmEnv(): Record<string, string> {
    return { ...networkEnv(), PATH, npm_config_cache: path.join(this.o.packagesDir, ".npm-cache"), npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
  }

  workDir(id: string): string {
    return path.join(this.o.deploymentsDir, id);
  }

  async remove(id: string): Promise<void> {
    await fs.rm(this.workDir(id), { recursive: true, force: true });
  }

  nodeArgv(entry: string, args: string[]): string[] {
    return [process.execPath, `--max-old-space-size=${Math.max(32, Math.floor(this.o.memoryMb * 0.75))}`, entry, ...args];
  }

  async prepare(id: string, source: Source): Promise<Prepared> {
    const workDir = this.workDir(id);
    await fs.mkdir(workDir, { recursive: true });
    if (source.kind === "npm") {
      const dir = await this.ensurePackage(source.package, source.version);
      const entry = await entryPoint(path.join(dir, "node_modules", source.package), source.package);
      return { argv: this.nodeArgv(entry, source.args), workDir, readOnly: [dir] };
    }
    return this.fromGit(workDir, source);
  }

  /** The exact version a tag or empty version means now; remembered for an hour so redeploys skip the network. */
  private async resolveVersion(name: string, version: string | null): Promise<string> {
    const spec = version ?? "latest";
    if (EXACT.test(spec)) return spec;
    const key = `${name}@${spec}`;
    const known = this.tags.get(key);
    if (known && Date.now() - known.at < TAG_TTL_MS) return known.version;
    try {
      const out = await exec("npm", ["view", key, "version", "--json"], { env: this.npmEnv(), timeoutMs: 30_000 });
      const parsed = JSON.parse(out) as string | string[];
      const v = Array.isArray(parsed) ? parsed[parsed.length - 1]! : parsed;
      this.tags.set(key, { version: v, at: Date.now() });
      return v;
    } catch (e) {
      // Offline: the newest installed version of the package still runs.
      const installed = (await fs.readdir(this.o.packagesDir).catch(() => [] as string[])).filter((d) => d.startsWith(`${cacheName(name)}@`) && !d.includes(".tmp-"));
      const versions = installed.map((d) => d.slice(cacheName(name).length + 1)).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
      if (versions.length) return versions.at(-1)!;
      throw new InstallError(`Could not find the npm package ${key}: ${(e as Error).message.split("\n").at(-1)}`);
    }
  }

  async ensurePackage(name: string, version: string | null): Promise<string> {
    const exact = await this.resolveVersion(name, version);
    const dir = path.join(this.o.packagesDir, `${cacheName(name)}@${exact}`);
    if (existsSync(path.join(dir, ".complete"))) return dir;
    let p = this.locks.get(dir);
    if (!p) {
      p = this.install(name, exact, dir).finally(() => this.locks.delete(dir));
      this.locks.set(dir, p);
    }
    return p;
  }

  private async install(name: string, version: string, dir: string): Promise<string> {
    const tmp = `${dir}.tmp-${randomBytes(4).toString("hex")}`;
    await fs.mkdir(tmp, { recursive: true });
    await fs.writeFile(path.join(tmp, "package.json"), JSON.stringify({ name: "switchboard-install", private: true }));
    const t = performance.now();
    try {
      // --ignore-scripts: installing never runs the package's code outside the sandbox.
      await exec("npm", ["install", "--ignore-scripts", "--omit=dev", "--no-package-lock", "--prefix", tmp, `${name}@${version}`], { cwd: tmp, env: this.npmEnv(), timeoutMs: this.o.timeoutMs });
      await fs.writeFile(path.join(tmp, ".complete"), new Date().toISOString());
      await fs.rename(tmp, dir).catch(async (e: NodeJS.ErrnoException) => {
        if (!existsSync(path.join(dir, ".complete"))) throw e; // someone else finished first
        await fs.rm(tmp, { recursive: true, force: true });
      });
      this.o.log.info({ package: `${name}@${version}`, ms: Math.round(performance.now() - t) }, "npm package installed");
      return dir;
    } catch (e) {
      await fs.rm(tmp, { recursive: true, force: true });
      throw e;
    }
  }

  private async fromGit(workDir: string, source: Extract<Source, { kind: "git" }>): Promise<Prepared> {
    const { url, kind } = parseGitUrl(source.url, { allowFile: this.o.allowFileGit });
    if (kind === "https") await assertPublicGitHost(url);
    const app = path.join(workDir, "app");
    await fs.rm(app, { recursive: true, force: true });
    const protocols = ["-c", "protocol.allow=never", "-c", "protocol.https.allow=always", ...(kind === "file" ? ["-c", "protocol.file.allow=always"] : [])];
    const env = { ...networkEnv(), PATH, HOME: workDir, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    // No submodules, no hooks, no redirects to somewhere unchecked.
    await exec("git", [...protocols, "-c", "core.hooksPath=/dev/null", "-c", "http.followRedirects=false", "clone", "--depth", "1", "--no-recurse-submodules", "--single-branch", "--", url, app], { env, timeoutMs: this.o.timeoutMs });
    const pkgFile = path.join(app, "package.json");
    if (!existsSync(pkgFile)) throw new InstallError("The repository has no package.json: only Node.js servers can be built from a repository");
    const pkg = JSON.parse(await fs.readFile(pkgFile, "utf8")) as { dependencies?: object; devDependencies?: object; scripts?: Record<string, string> };
    const npmEnv = { ...this.npmEnv() };
    if (existsSync(path.join(app, "package-lock.json")) || existsSync(path.join(app, "npm-shrinkwrap.json"))) {
      await exec("npm", ["ci", "--ignore-scripts"], { cwd: app, env: npmEnv, timeoutMs: this.o.timeoutMs });
    } else if (Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).length > 0) {
      await exec("npm", ["install", "--ignore-scripts", "--no-package-lock"], { cwd: app, env: npmEnv, timeoutMs: this.o.timeoutMs });
    }
    if (pkg.scripts?.build) await this.buildInSandbox(workDir, app);
    const args = [...(await serverJsonArgs(app)), ...source.args];
    return { argv: this.nodeArgv(await entryPoint(app, null), args), workDir, readOnly: [] };
  }

  /** The repository's own build runs its code, so it runs sandboxed like the server itself. */
  private async buildInSandbox(workDir: string, app: string): Promise<void> {
    const argv = ["npm", "run", "build"];
    const env = { ...childNetworkEnv(), PATH, HOME: workDir, npm_config_update_notifier: "false" };
    if (this.o.sandbox.kind === "bwrap") {
      const args = bwrapArgs(this.o.sandbox, { argv, workDir, readOnly: [], network: true });
      const i = args.indexOf("--chdir");
      args[i + 1] = app;
      await exec("bwrap", args, { env, timeoutMs: this.o.timeoutMs });
    } else {
      await exec(argv[0]!, argv.slice(1), { cwd: app, env, timeoutMs: this.o.timeoutMs });
    }
  }
}

// The operator's network settings (proxy, extra CA roots, npm registry) reach npm and git, which
// run no package code here (--ignore-scripts); nothing else of the platform's environment does.
const NETWORK_ENV = /^(HOME|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|GIT_SSL_CAINFO|https?_proxy|no_proxy|npm_config_(registry|userconfig|strict_ssl|cafile|proxy|https_proxy|noproxy))$/i;

export function networkEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => NETWORK_ENV.test(e[0]) && e[1] !== undefined));
}

/** For code that runs sandboxed: only the extra CA roots, so TLS works behind an inspecting proxy. */
export function childNetworkEnv(): Record<string, string> {
  return process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {};
}

function cacheName(name: string): string {
  return name.replace("/", "+");
}

/** package.json `bin` (the one named like the package, or the only one), else a `node <file>` start script, else `main`. */
async function entryPoint(dir: string, packageName: string | null): Promise<string> {
  const pkg = JSON.parse(await fs.readFile(path.join(dir, "package.json"), "utf8").catch(() => "{}")) as { name?: string; bin?: string | Record<string, string>; main?: string; scripts?: Record<string, string> };
  let rel: string | undefined;
  if (typeof pkg.bin === "string") rel = pkg.bin;
  else if (pkg.bin && typeof pkg.bin === "object") {
    const base = (packageName ?? pkg.name ?? "").split("/").pop()!;
    const names = Object.keys(pkg.bin);
    rel = pkg.bin[base] ?? (names.length ? pkg.bin[names[0]!] : undefined);
  }
  const start = /^node\s+([\w./-]+)\s*$/.exec(pkg.scripts?.start ?? "");
  rel ??= start?.[1] ?? pkg.main;
  if (!rel) throw new InstallError("Nothing to run: package.json has no bin, no `node <file>` start script and no main");
  const entry = path.resolve(dir, rel);
  if (!entry.startsWith(dir + path.sep) || !existsSync(entry)) throw new InstallError(`The entry point ${rel} does not exist in the package`);
  return entry;
}

/** A server.json in the repository: its npm package's fixed positional arguments are honoured. */
async function serverJsonArgs(app: string): Promise<string[]> {
  const file = path.join(app, "server.json");
  if (!existsSync(file)) return [];
  try {
    const sj = JSON.parse(await fs.readFile(file, "utf8")) as { packages?: { packageArguments?: { type?: string; value?: string }[] }[] };
    return (sj.packages?.[0]?.packageArguments ?? []).filter((a) => a.type === "positional" && typeof a.value === "string").map((a) => a.value!);
  } catch {
    throw new InstallError("server.json in the repository is not valid JSON");
  }
}
