import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "../../log.js";
import { assertPublicGitHost, parseGitUrl } from "./git-url.js";
import { caFiles, installEnv, networkEnv, tenantEnv } from "./install-env.js";
import {
  cacheName,
  diskWatch,
  entryPoint,
  InstallError,
  newest,
  openForReading,
  serverJsonArgs,
  treeBytes,
  type WatchStop,
} from "./package-files.js";
import { SANDBOX_PATH } from "./sandbox/bwrap.js";
import type { Identity, UidPool } from "./sandbox/identity.js";
import { StepError, type Limits, type Sandbox } from "./sandbox/index.js";
import { readTenantJson, removeTree, tenantPathKind, TenantFileError } from "./sandbox/tenant-files.js";
import type { Volumes } from "./sandbox/volumes.js";
import type { PythonRuntime, Step } from "./python.js";
import { buildPythonRepo } from "./python-repo.js";
import type { Source } from "./runner.js";

export type { Source };

// Turns a deployment's source into a command to run. npm packages are installed once per
// name@version into a shared cache and reused: by npm, with the platform's configuration and no
// install scripts, in a sandbox of the platform's own (its uid, nothing of the host but the
// cache). A git repository is cloned, installed and built in the deployment's own sandbox, as the
// deployment's uid: whatever its .npmrc, lockfile or build script makes npm or git run, runs
// there. The platform reads a repository's files only without following links (tenant-files.ts).

export interface Prepared {
  /** node and its arguments: the server's entry point and args */
  argv: string[];
  workDir: string;
  /** where it starts (default workDir): a Python repository's checkout, so `python -m` finds its modules */
  cwd?: string;
  readOnly: string[];
  /** who the server runs as (null: the platform's own uid, where it cannot switch) */
  identity: Identity | null;
}

export interface InstallerOptions {
  packagesDir: string;
  sandbox: Sandbox;
  volumes: Volumes;
  uids: UidPool;
  allowFileGit: boolean;
  timeoutMs: number;
  limits: Limits;
  /** DEPLOY_DISK_MB: also the most an installed package may take in the shared cache */
  diskMb: number;
  log: Logger;
  /** Python packages and repositories */
  python: PythonRuntime;
}

const TAG_TTL_MS = 60 * 60 * 1000;
const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export { InstallError };

function exec(file: string, args: string[], opts: { env: Record<string, string>; timeoutMs: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { env: opts.env, timeout: opts.timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: "SIGKILL" },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const tail = String(stderr || stdout)
          .trim()
          .split("\n")
          .slice(-6)
          .join("\n");
        reject(
          new InstallError(
            `${path.basename(file)} ${args[0]} failed${(err as { killed?: boolean }).killed ? " (timed out)" : ""}: ${tail}`,
          ),
        );
      },
    );
  });
}

export class Installer {
  private readonly locks = new Map<string, Promise<string>>();
  private readonly tags = new Map<string, { version: string; at: number }>();

  constructor(private readonly o: InstallerOptions) {}

  /** For `npm view` on the host: registry metadata only, in a cache of its own (the install sandbox's is not the platform's to write). */
  private viewEnv(): Record<string, string> {
    return {
      ...networkEnv(),
      PATH: SANDBOX_PATH,
      npm_config_cache: path.join(this.o.packagesDir, ".cache", "npm-view"),
      npm_config_update_notifier: "false",
    };
  }

  async remove(id: string): Promise<void> {
    await this.o.volumes.remove(id);
    await this.o.uids.release(id);
  }

  nodeArgv(entry: string, args: string[]): string[] {
    return [process.execPath, `--max-old-space-size=${Math.max(32, Math.floor(this.o.limits.memoryMb * 0.75))}`, entry, ...args];
  }

  /** `signal`: the deployment was stopped meanwhile; a running step is killed and nothing more starts. */
  async prepare(id: string, source: Source, signal?: AbortSignal): Promise<Prepared> {
    const identity = await this.o.uids.forDeployment(id);
    const workDir = await this.o.volumes.ensure(id, identity);
    try {
      // A registry install is shared with other deployments: a stop only stops waiting for it.
      if (source.kind === "npm") return { ...(await abortable(this.npmCommand(source), signal)), workDir, identity };
      if (source.kind === "pypi") return { ...(await abortable(this.o.python.command(source), signal)), workDir, identity };
      return await this.fromGit(id, workDir, identity, source, signal);
    } catch (e) {
      if (e instanceof TenantFileError) throw new InstallError(e.message);
      throw e;
    }
  }

  /** An npm package's command from the shared cache (installed first when missing), and the folder it reads. */
  async npmCommand(source: Extract<Source, { kind: "npm" }>): Promise<{ argv: string[]; readOnly: string[] }> {
    const dir = await this.ensurePackage(source.package, source.version);
    const entry = await entryPoint(path.join(dir, "node_modules", source.package), source.package);
    return { argv: this.nodeArgv(entry, source.args), readOnly: [dir, ...caFiles()] };
  }

  /** The exact version a tag or empty version means now; remembered for an hour so redeploys skip the network. */
  private async resolveVersion(name: string, version: string | null): Promise<string> {
    const spec = version ?? "latest";
    if (EXACT.test(spec)) return spec;
    const key = `${name}@${spec}`;
    const known = this.tags.get(key);
    if (known && Date.now() - known.at < TAG_TTL_MS) return known.version;
    try {
      const out = await exec("npm", ["view", key, "version", "--json"], { env: this.viewEnv(), timeoutMs: 30_000 });
      const parsed = JSON.parse(out) as string | string[];
      const v = Array.isArray(parsed) ? parsed[parsed.length - 1]! : parsed;
      if (typeof v !== "string" || !EXACT.test(v)) throw new InstallError(`npm answered an unexpected version for ${key}`);
      this.tags.set(key, { version: v, at: Date.now() });
      return v;
    } catch (e) {
      // Offline: the newest installed version of the package still runs.
      const installed = (await fs.readdir(this.o.packagesDir).catch(() => [] as string[])).filter(
        (d) => d.startsWith(`${cacheName(name)}@`) && !d.includes(".tmp-"),
      );
      const version = newest(installed.map((d) => d.slice(cacheName(name).length + 1)));
      if (version) return version;
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
    // tmp (root's) holds the installer's prefix and an npm cache of this install only, so no
    // install can leave anything in a cache another one reads, and nothing outlives it but the package.
    const tmp = `${dir}.tmp-${randomBytes(4).toString("hex")}`;
    const prefix = path.join(tmp, "package");
    const cache = path.join(tmp, "npm-cache");
    const installer = this.o.uids.installer();
    await fs.mkdir(prefix, { recursive: true });
    await fs.mkdir(cache);
    await fs.chmod(tmp, 0o711); // the installer's uid passes through, whatever the umask
    await fs.writeFile(path.join(prefix, "package.json"), JSON.stringify({ name: "switchboard-install", private: true }));
    if (installer) for (const p of [prefix, path.join(prefix, "package.json"), cache]) await fs.chown(p, installer.uid, installer.gid);
    // Disk: the shared cache is the platform's. An install that writes more than twice the
    // deployment limit (package and downloads) is stopped while it runs.
    const watch = diskWatch(tmp, 2 * this.o.diskMb);
    const t = performance.now();
    try {
      // The platform's npm and configuration (no user or project config), no install scripts, and
      // only registry dependencies: no git, URL, file or directory ones (git is /bin/false from the
      // environment, which outranks any .npmrc, for npm versions without --allow-git). No package
      // code runs, and nothing of the host is visible anyway.
      await this.o.sandbox.run(
        {
          argv: [
            "npm",
            "install",
            "--ignore-scripts",
            "--omit=dev",
            "--no-package-lock",
            "--no-audit",
            "--no-fund",
            "--allow-git=none",
            "--allow-remote=none",
            "--allow-file=none",
            "--allow-directory=none",
            "--prefix",
            prefix,
            `${name}@${version}`,
          ],
          env: {
            ...installEnv(),
            HOME: cache,
            npm_config_cache: cache,
            npm_config_git: "/bin/false",
            npm_config_userconfig: "/dev/null",
            npm_config_update_notifier: "false",
            npm_config_logs_max: "0",
          },
          cwd: prefix,
          writable: [prefix, cache],
          readOnly: caFiles(),
          network: true,
          identity: installer,
          limits: this.o.limits,
          label: "install",
        },
        this.o.timeoutMs,
        watch.signal,
      );
      const mb = (await treeBytes(prefix)) / 1024 / 1024;
      if (mb > this.o.diskMb)
        throw new InstallError(
          `The npm package ${name}@${version} takes ${Math.ceil(mb)} MB with its dependencies, more than the ${this.o.diskMb} MB a deployment may use`,
        );
      if (process.umask() & 0o005) await openForReading(prefix); // every deployment's uid reads the cache
      // wx: created here or not at all, never through a link the install might have left.
      await fs.writeFile(path.join(prefix, ".complete"), new Date().toISOString(), { flag: "wx" });
      await fs.rename(prefix, dir).catch((e: NodeJS.ErrnoException) => {
        if (!existsSync(path.join(dir, ".complete"))) throw e; // someone else finished first
      });
      this.o.log.info({ package: `${name}@${version}`, ms: Math.round(performance.now() - t) }, "npm package installed");
      return dir;
    } catch (e) {
      if (watch.signal.aborted)
        throw new InstallError((watch.signal.reason as WatchStop).explain(`The npm package ${name}@${version}`, this.o.diskMb));
      if (e instanceof StepError) throw new InstallError(`npm install of ${name}@${version} failed: ${e.message}`);
      throw e;
    } finally {
      watch.stop();
      await removeTree(tmp);
    }
  }

  /** A root-owned git config for cloning tests' file:// repositories (GIT_ALLOW_FILE, never in production). */
  private async fileRepoGitConfig(): Promise<string> {
    const dir = path.join(this.o.packagesDir, ".cache");
    const file = path.join(dir, "gitconfig-file-repositories");
    await fs.mkdir(dir, { recursive: true });
    await fs.chmod(dir, 0o711);
    await fs.writeFile(file, "[safe]\n\tdirectory = *\n");
    await fs.chmod(file, 0o644);
    return file;
  }

  /** A root-owned, world-readable copy of a test's file:// repository (links copied as links, never followed). */
  private async stageFileRepo(id: string, repo: string): Promise<string> {
    const dir = path.join(this.o.packagesDir, ".cache", "file-repositories");
    await fs.mkdir(dir, { recursive: true });
    await fs.chmod(dir, 0o711);
    const copy = path.join(dir, `${id}-${randomBytes(4).toString("hex")}`);
    await fs.cp(repo, copy, { recursive: true, verbatimSymlinks: true });
    await openForReading(copy);
    return copy;
  }

  private async fromGit(
    id: string,
    workDir: string,
    identity: Identity | null,
    source: Extract<Source, { kind: "git" }>,
    signal?: AbortSignal,
  ): Promise<Prepared> {
    const { url, kind } = parseGitUrl(source.url, { allowFile: this.o.allowFileGit });
    if (kind === "https") await assertPublicGitHost(url);
    const app = path.join(workDir, "app");
    // rm never follows a link the last checkout left.
    await removeTree(app);
    // Tests' file:// repositories belong to another uid than the clone's, which git refuses unless
    // a global config says otherwise (git 2.39 ignores safe.directory given on the command line);
    // and they may sit in a folder only root can read, so the clone reads a world-readable copy.
    const fileConfig = kind === "file" ? await this.fileRepoGitConfig() : null;
    const staged = kind === "file" ? await this.stageFileRepo(id, new URL(url).pathname) : null;
    const env = { ...tenantEnv(workDir), ...(fileConfig ? { GIT_CONFIG_GLOBAL: fileConfig } : {}) };
    const step = async (what: string, argv: string[], cwd: string, readOnly: string[] = [], extraEnv: Record<string, string> = {}) => {
      try {
        await this.o.sandbox.run(
          {
            argv,
            env: { ...env, ...extraEnv },
            cwd,
            writable: [workDir],
            readOnly: [...readOnly, ...caFiles()],
            network: true,
            identity,
            limits: this.o.limits,
            label: id,
          },
          this.o.timeoutMs,
          signal,
        );
      } catch (e) {
        if (e instanceof StepError) throw new InstallError(`${what} failed: ${e.message}`);
        throw e;
      }
    };
    const protocols = [
      "-c",
      "protocol.allow=never",
      "-c",
      "protocol.https.allow=always",
      ...(kind === "file" ? ["-c", "protocol.file.allow=always"] : []),
    ];
    // No submodules, no hooks, no redirects to somewhere unchecked; and it runs sandboxed anyway.
    try {
      const from = staged ? pathToFileURL(staged).href : url;
      await step(
        "git clone",
        [
          "git",
          ...protocols,
          "-c",
          "core.hooksPath=/dev/null",
          "-c",
          "http.followRedirects=false",
          "clone",
          "--depth",
          "1",
          "--no-recurse-submodules",
          "--single-branch",
          "--",
          from,
          app,
        ],
        workDir,
        staged && fileConfig ? [staged, fileConfig] : [],
      );
    } finally {
      if (staged) await fs.rm(staged, { recursive: true, force: true });
    }
    const pkg = await readTenantJson<{ dependencies?: object; devDependencies?: object; scripts?: Record<string, string> }>(
      app,
      "package.json",
    );
    if (source.module || (!pkg && (await isPythonProject(app)))) {
      const pyStep: Step = (what, argv, o) => step(what, argv, o.cwd, o.readOnly, o.env);
      const argv = await buildPythonRepo(this.o.python, pyStep, app, path.join(workDir, ".venv"), source.module, [
        ...(await serverJsonArgs(app)),
        ...source.args,
      ]);
      return { argv, workDir, cwd: app, readOnly: caFiles(), identity };
    }
    if (!pkg)
      throw new InstallError(
        "The repository has no package.json, pyproject.toml, setup.py or requirements.txt: only Node.js and Python servers can be built from a repository",
      );
    const locked =
      (await tenantPathKind(app, "package-lock.json")) !== "missing" || (await tenantPathKind(app, "npm-shrinkwrap.json")) !== "missing";
    if (locked) await step("npm ci", ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], app);
    else if (Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).length > 0)
      await step("npm install", ["npm", "install", "--ignore-scripts", "--no-package-lock", "--no-audit", "--no-fund"], app);
    if (typeof pkg.scripts?.build === "string") await step("npm run build", ["npm", "run", "build"], app);
    const args = [...(await serverJsonArgs(app)), ...source.args];
    return { argv: this.nodeArgv(await entryPoint(app, null), args), workDir, readOnly: caFiles(), identity };
  }
}

async function isPythonProject(app: string): Promise<boolean> {
  for (const f of ["pyproject.toml", "setup.py", "requirements.txt"]) if ((await tenantPathKind(app, f)) !== "missing") return true;
  return false;
}

function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new InstallError(String(signal.reason)));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
