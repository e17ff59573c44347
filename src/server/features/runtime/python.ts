import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Logger } from "../../log.js";
import { diskWatch, InstallError, openForReading, treeBytes } from "./package-files.js";
import type { Source } from "./runner.js";
import { SANDBOX_PATH, systemRoots } from "./sandbox/bwrap.js";
import type { UidPool } from "./sandbox/identity.js";
import { StepError, type Limits, type Sandbox } from "./sandbox/index.js";
import { readTenantFile, readTenantJson, tenantPathKind } from "./sandbox/tenant-files.js";

// Python servers. A PyPI package is installed once per name@version into a virtual environment
// of its own, shared like the npm cache: created with the machine's Python and filled by pip from
// the platform's index (PYPI_INDEX_URL), in a sandbox of the platform's own (its installer uid,
// nothing of the host but the system, a network of its own). pip prefers wheels; an sdist is
// built there too, so whatever its build runs, runs sandboxed. A repository's project is
// installed the same way into a virtual environment in the deployment's own volume, as the
// deployment's uid. The platform then reads only names and small metadata files, without
// following links (tenant-files.ts), and runs the console script with the environment's Python.

export const PYTHON_MIN: readonly [number, number] = [3, 10];
const TAG_TTL_MS = 60 * 60 * 1000;
const run = promisify(execFile);

export interface PythonOptions {
  packagesDir: string;
  sandbox: Sandbox;
  uids: UidPool;
  timeoutMs: number;
  limits: Limits;
  diskMb: number;
  log: Logger;
  /** PYPI_INDEX_URL: the simple-repository index every install reads */
  indexUrl: string;
  /** PYTHON: the interpreter (a name looked up on the sandbox's PATH, or an absolute path) */
  python: string;
}

/** PEP 503 normalised name: the same project however it is spelled. */
export const normalisedName = (name: string) => name.toLowerCase().replace(/[-_.]+/g, "-");

/** A sandboxed step: argv, where it may write, as whom, and which host folders it reads. */
export type Step = (what: string, argv: string[], opts: { cwd: string; readOnly?: string[]; env?: Record<string, string> }) => Promise<void>;

export class PythonRuntime {
  private interpreterPath?: Promise<string>;
  private readonly locks = new Map<string, Promise<string>>();
  private readonly tags = new Map<string, { version: string; at: number }>();

  constructor(private readonly o: PythonOptions) {}

  /** The machine's Python (>= PYTHON_MIN, with venv), found once; a clear error where there is none. */
  interpreter(): Promise<string> {
    this.interpreterPath ??= findPython(this.o.python).catch((e: unknown) => {
      this.interpreterPath = undefined;
      throw e;
    });
    return this.interpreterPath;
  }

  /** pip's environment: no user or site configuration, no prompts, a HOME and cache of the step's own. */
  pipEnv(home: string): Record<string, string> {
    return { PATH: SANDBOX_PATH, HOME: home, PIP_CONFIG_FILE: "/dev/null", PIP_NO_INPUT: "1", PIP_CACHE_DIR: path.join(home, ".cache", "pip"), PYTHONNOUSERSITE: "1" };
  }

  pipInstall(python: string): string[] {
    const index = new URL(this.o.indexUrl);
    // pip ignores a plain-HTTP index unless told to trust it; the operator's setting says so (never in production, see config.ts).
    const trusted = index.protocol === "http:" ? ["--trusted-host", index.host] : [];
    return [python, "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "--no-warn-script-location", "--progress-bar", "off", "--index-url", this.o.indexUrl, ...trusted];
  }

  /** A PyPI package's command from the shared cache (installed first when missing), and the folder it reads. */
  async command(source: Extract<Source, { kind: "pypi" }>): Promise<{ argv: string[]; readOnly: string[] }> {
    const venv = await this.ensurePackage(source.package, source.version);
    const script = await this.consoleScript(venv, source.package, source.command);
    return { argv: [path.join(venv, "bin", "python"), script, ...source.args], readOnly: [venv] };
  }

  private get cacheDir(): string {
    return path.join(this.o.packagesDir, "pypi");
  }

  /** The versions of a package the cache holds complete. */
  private async installed(name: string): Promise<string[]> {
    const prefix = `${normalisedName(name)}@`;
    const names = await fs.readdir(this.cacheDir).catch(() => [] as string[]);
    return names.filter((d) => d.startsWith(prefix) && !d.includes(".tmp-") && existsSync(path.join(this.cacheDir, d, ".complete"))).map((d) => d.slice(prefix.length));
  }

  async ensurePackage(name: string, version: string | null): Promise<string> {
    const key = normalisedName(name);
    let exact = version;
    if (exact === null) {
      const known = this.tags.get(key);
      if (known && Date.now() - known.at < TAG_TTL_MS) exact = known.version;
    }
    if (exact !== null) {
      const dir = path.join(this.cacheDir, `${key}@${exact}`);
      if (existsSync(path.join(dir, ".complete"))) return dir;
    }
    const lockKey = `${key}@${exact ?? ""}`;
    let p = this.locks.get(lockKey);
    if (!p) {
      p = this.install(name, exact).finally(() => this.locks.delete(lockKey));
      this.locks.set(lockKey, p);
    }
    return p;
  }

  /**
   * Installs name (==version, or the index's newest) into a new environment and moves it to its
   * name@version folder. Unpinned, the newest installed version is used when the index cannot be reached.
   */
  private async install(name: string, version: string | null): Promise<string> {
    const python = await this.interpreter();
    await fs.mkdir(this.cacheDir, { recursive: true });
    const key = normalisedName(name);
    // tmp is root's and passable; work (the installer's) holds the environment, pip's HOME and cache.
    const tmp = path.join(this.cacheDir, `${key}.tmp-${randomBytes(4).toString("hex")}`);
    const work = path.join(tmp, "work");
    const venv = path.join(work, "venv");
    const installer = this.o.uids.installer();
    await fs.mkdir(work, { recursive: true });
    await fs.chmod(tmp, 0o711);
    if (installer) await fs.chown(work, installer.uid, installer.gid);
    const watch = diskWatch(tmp, 2 * this.o.diskMb);
    const spec = `${name}${version ? `==${version}` : ""}`;
    const t = performance.now();
    const step = async (what: string, argv: string[]) => {
      try {
        return await this.o.sandbox.run(
          { argv, env: this.pipEnv(path.join(work, "home")), cwd: work, writable: [work], readOnly: [], network: true, identity: installer, limits: this.o.limits, label: "install" },
          this.o.timeoutMs,
          watch.signal,
        );
      } catch (e) {
        if (watch.signal.aborted) throw new InstallError(`The PyPI package ${spec} is larger than the ${this.o.diskMb} MB a deployment may use (${String(watch.signal.reason)} while installing)`);
        if (e instanceof StepError) throw new InstallError(`${what} of ${spec} failed: ${e.message}`);
        throw e;
      }
    };
    try {
      await step("Creating the virtual environment", [python, "-m", "venv", venv]);
      try {
        await step("pip install", [...this.pipInstall(path.join(venv, "bin", "python")), spec]);
      } catch (e) {
        if (version !== null) throw e;
        const fallback = newest(await this.installed(name));
        if (!fallback) throw e;
        this.o.log.warn({ package: name, version: fallback, err: (e as Error).message }, "PyPI index unreachable: running the newest installed version");
        return path.join(this.cacheDir, `${key}@${fallback}`);
      }
      const site = await sitePackages(venv);
      const dist = await distInfo(site, name);
      if (!dist) throw new InstallError(`pip installed ${spec} but its metadata (${key}-*.dist-info) is missing`);
      const exact = dist.version;
      const mb = (await treeBytes(venv)) / 1024 / 1024;
      if (mb > this.o.diskMb) throw new InstallError(`The PyPI package ${name}==${exact} takes ${Math.ceil(mb)} MB with its dependencies, more than the ${this.o.diskMb} MB a deployment may use`);
      if (process.umask() & 0o005) await openForReading(venv);
      const dir = path.join(this.cacheDir, `${key}@${exact}`);
      await fs.writeFile(path.join(venv, ".complete"), new Date().toISOString(), { flag: "wx" });
      await fs.rename(venv, dir).catch((e: NodeJS.ErrnoException) => {
        if (!existsSync(path.join(dir, ".complete"))) throw e; // someone else finished first
      });
      if (version === null) this.tags.set(key, { version: exact, at: Date.now() });
      this.o.log.info({ package: `${name}==${exact}`, ms: Math.round(performance.now() - t) }, "PyPI package installed");
      return dir;
    } finally {
      watch.stop();
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }

  /** `command` (or the package's own console script) in the environment's bin folder. */
  private async consoleScript(venv: string, name: string, command: string | null): Promise<string> {
    const candidates = command ? [command] : [...new Set([name, name.toLowerCase(), normalisedName(name)])];
    for (const c of candidates) if ((await tenantPathKind(venv, `bin/${c}`)) === "file") return path.join(venv, "bin", c);
    const dist = await distInfo(await sitePackages(venv), name);
    const scripts = dist ? await consoleScripts(dist.dir) : [];
    // uvx would refuse here; a package with a single console script is what its publisher means.
    if (!command && scripts.length === 1 && (await tenantPathKind(venv, `bin/${scripts[0]}`)) === "file") return path.join(venv, "bin", scripts[0]!);
    const available = scripts.length ? ` It provides: ${scripts.slice(0, 10).join(", ")}.` : " It provides no console script.";
    throw new InstallError(`The PyPI package ${name} has no command named ${command ?? name}.${available}${command ? "" : ' Name one with "uvx --from <package> <command>".'}`);
  }

  /**
   * A repository's Python project, installed into `venv` with the deployment's own steps; returns
   * the argv that runs it: `python -m module`, else the project's console script.
   */
  async buildRepo(step: Step, app: string, venv: string, module: string | undefined, args: string[]): Promise<string[]> {
    const python = await this.interpreter();
    await fs.rm(venv, { recursive: true, force: true });
    const env = this.pipEnv(path.dirname(venv));
    await step("Creating the virtual environment", [python, "-m", "venv", venv], { cwd: app, env });
    const vpython = path.join(venv, "bin", "python");
    const project = (await tenantPathKind(app, "pyproject.toml")) === "file" || (await tenantPathKind(app, "setup.py")) === "file";
    if (project) await step("pip install", [...this.pipInstall(vpython), app], { cwd: app, env });
    else if ((await tenantPathKind(app, "requirements.txt")) === "file") await step("pip install", [...this.pipInstall(vpython), "-r", "requirements.txt"], { cwd: app, env });
    if (module) return [vpython, "-m", module, ...args];
    if (!project) throw new InstallError('The repository has no pyproject.toml or setup.py: give the command "python -m <module>" to run it');
    const site = await sitePackages(venv);
    const own = await projectDist(site, app);
    const scripts = own ? await consoleScripts(own.dir) : [];
    const named = own && scripts.find((s) => normalisedName(s) === normalisedName(own.name));
    const script = scripts.length === 1 ? scripts[0] : named;
    if (!script) {
      const why = scripts.length ? `several console scripts (${scripts.slice(0, 10).join(", ")})` : "no console script";
      throw new InstallError(`The repository's Python project has ${why}: give the command "python -m <module>" to say what to run`);
    }
    if ((await tenantPathKind(venv, `bin/${script}`)) !== "file") throw new InstallError(`The console script ${script} was not installed`);
    return [vpython, path.join(venv, "bin", script), ...args];
  }
}

/** The highest of some versions, comparing their numbers (what an offline fallback needs, not all of PEP 440). */
export function newest(versions: string[]): string | undefined {
  return [...versions].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
}

async function findPython(setting: string): Promise<string> {
  const candidates = path.isAbsolute(setting) ? [setting] : SANDBOX_PATH.split(":").map((d) => path.join(d, setting));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new InstallError(`Python servers need Python ${PYTHON_MIN.join(".")} or newer on this host, and ${setting} was not found (set PYTHON, or install python3 and python3-venv)`);
  if (!systemRoots().some((r) => found === r || found.startsWith(`${r}/`))) throw new InstallError(`PYTHON (${found}) must live under ${systemRoots().join(", ")}, which the sandbox can see`);
  const probe = "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2])";
  const out = await run(found, ["-I", "-c", probe], { timeout: 10_000 }).then(
    (r) => r.stdout.trim(),
    () => null,
  );
  if (out === null) throw new InstallError(`${found} cannot create virtual environments (install python3-venv)`);
  const [major = 0, minor = 0] = out.split(".").map(Number);
  if (major < PYTHON_MIN[0] || (major === PYTHON_MIN[0] && minor < PYTHON_MIN[1])) throw new InstallError(`Python servers need Python ${PYTHON_MIN.join(".")} or newer; ${found} is ${out}`);
  return found;
}

/** The environment's site-packages folder (lib/python3.X/site-packages), found without following links. */
async function sitePackages(venv: string): Promise<string> {
  const lib = await fs.readdir(path.join(venv, "lib")).catch(() => [] as string[]);
  for (const v of lib.filter((d) => /^python3\.\d+$/.test(d))) {
    if ((await tenantPathKind(venv, `lib/${v}/site-packages`)) === "dir") return path.join(venv, "lib", v, "site-packages");
  }
  throw new InstallError("The virtual environment has no site-packages folder");
}

interface Dist {
  name: string;
  version: string;
  dir: string;
}

async function dists(site: string): Promise<Dist[]> {
  const names = (await fs.readdir(site).catch(() => [] as string[])).filter((d) => d.endsWith(".dist-info"));
  return names.flatMap((d) => {
    const base = d.slice(0, -".dist-info".length);
    const dash = base.lastIndexOf("-");
    return dash > 0 ? [{ name: base.slice(0, dash), version: base.slice(dash + 1), dir: path.join(site, d) }] : [];
  });
}

async function distInfo(site: string, name: string): Promise<Dist | undefined> {
  return (await dists(site)).find((d) => normalisedName(d.name) === normalisedName(name));
}

/** The distribution pip installed from the repository's folder (its direct_url.json names it). */
async function projectDist(site: string, app: string): Promise<Dist | undefined> {
  for (const d of await dists(site)) {
    const direct = await readTenantJson<{ url?: string; dir_info?: object }>(d.dir, "direct_url.json").catch(() => null);
    if (direct?.dir_info && typeof direct.url === "string" && decodeURIComponent(direct.url.replace(/^file:\/\//, "")) === app) return d;
  }
  return undefined;
}

/** The [console_scripts] names of a dist-info's entry_points.txt (names only: the script files run them). */
export async function consoleScripts(distDir: string): Promise<string[]> {
  const text = await readTenantFile(path.dirname(distDir), `${path.basename(distDir)}/entry_points.txt`, 256 * 1024).catch(() => null);
  return parseConsoleScripts(text ?? "");
}

export function parseConsoleScripts(text: string): string[] {
  const out: string[] = [];
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("[")) inSection = line === "[console_scripts]";
    else if (inSection && line && !line.startsWith("#") && !line.startsWith(";")) {
      const name = line.split("=")[0]!.trim();
      if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) out.push(name);
    }
  }
  return out;
}
