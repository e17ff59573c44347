import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { InstallError, newest, sealOnce } from "../package-files.js";
import { PythonEnvironments, StepFailed, type PythonOptions } from "./python-env.js";
import { consoleScripts, dists, normalisedName, sitePackages, type Dist } from "./python-files.js";
import type { Source } from "../../runner.js";
import { tenantPathKind } from "../../sandbox/tenant-files.js";

// Python servers. A PyPI package is installed once per name@version into a virtual environment
// of its own, shared like the npm cache: created with the machine's Python and filled by pip from
// the platform's index (PYPI_INDEX_URL), in a sandbox of the platform's own (its installer uid,
// nothing of the host but the system, a network of its own). pip prefers wheels; an sdist is
// built there too, so whatever its build runs, runs sandboxed. A repository's project is
// installed the same way into a virtual environment in the deployment's own volume, as the
// deployment's uid. The platform then reads only names and small metadata files, without
// following links (tenant-files.ts), and runs the console script with the environment's Python.
// The interpreter, pip's command line and new environments are python-env.ts.

export type { PythonOptions };

const TAG_TTL_MS = 60 * 60 * 1000;
/** How long "the index could not say" is kept before it is asked again. */
const RETRY_MS = 5 * 60 * 1000;
/** A version that may name a cache folder (PEP 440 normalised versions are all of this shape). */
const SAFE_VERSION = /^[0-9][A-Za-z0-9.+!_-]{0,63}$/;

/** A sandboxed step: argv, where it may write, as whom, and which host folders it reads. */
export type Step = (
  what: string,
  argv: string[],
  opts: { cwd: string; readOnly?: string[]; env?: Record<string, string> },
) => Promise<void>;

/** The environment's own tooling, whose scripts are not servers. */
const TOOLING = new Set(["pip", "setuptools", "wheel"]);

export class PythonRuntime {
  private readonly envs: PythonEnvironments;
  private readonly locks = new Map<string, Promise<{ dir: string; version: string }>>();
  private readonly tags = new Map<string, { version: string; until: number }>();

  constructor(private readonly o: PythonOptions) {
    this.envs = new PythonEnvironments(o);
  }

  /** The machine's Python (>= PYTHON_MIN, with venv), found once; a clear error where there is none. */
  interpreter(): Promise<string> {
    return this.envs.interpreter();
  }

  /** pip's environment: no user or site configuration, no prompts, a HOME and cache of the step's own. */
  pipEnv(home: string): Record<string, string> {
    return this.envs.pipEnv(home);
  }

  pipInstall(python: string): string[] {
    return this.envs.pipInstall(python);
  }

  /** A PyPI package's command from the shared cache (installed first when missing), and the folder it reads. */
  async command(source: Extract<Source, { kind: "pypi" }>): Promise<{ argv: string[]; readOnly: string[] }> {
    const venv = await this.ensurePackage(source.package, source.version);
    const script = await this.consoleScript(venv, source.package, source.command);
    return { argv: [path.join(venv, "bin", "python"), script, ...source.args], readOnly: [venv] };
  }

  private get cacheDir(): string {
    return this.envs.cacheDir;
  }

  /** The versions of a package the cache holds complete. */
  private async installed(name: string): Promise<string[]> {
    const prefix = `${normalisedName(name)}@`;
    const names = await fs.readdir(this.cacheDir).catch(() => [] as string[]);
    return names
      .filter((d) => d.startsWith(prefix) && !d.includes(".tmp-") && existsSync(path.join(this.cacheDir, d, ".complete")))
      .map((d) => d.slice(prefix.length));
  }

  /**
   * The environment of name==version, installed first when missing. Unpinned: the index's newest
   * release (asked at most hourly); when the index cannot say, or that release fails to install,
   * the newest installed one runs (and the answer is kept for a few minutes, not an hour).
   */
  async ensurePackage(name: string, version: string | null): Promise<string> {
    if (version !== null) return (await this.ensureExact(name, version)).dir;
    const key = normalisedName(name);
    const known = this.tags.get(key);
    if (known && Date.now() < known.until) return (await this.ensureExact(name, known.version)).dir;
    const have = newest(await this.installed(name));
    const wanted = have ? await this.newestRelease(name) : null;
    const remember = (v: string, ms: number) => this.tags.set(key, { version: v, until: Date.now() + ms });
    if (have && wanted === null) {
      remember(have, RETRY_MS);
      return path.join(this.cacheDir, `${key}@${have}`);
    }
    try {
      const got = await this.ensureExact(name, wanted);
      remember(got.version, TAG_TTL_MS);
      return got.dir;
    } catch (e) {
      if (!have || !(e instanceof StepFailed)) throw e;
      this.o.log.warn(
        { package: name, version: have, err: (e as Error).message },
        "could not install the newest release: running the newest installed one",
      );
      remember(have, RETRY_MS);
      return path.join(this.cacheDir, `${key}@${have}`);
    }
  }

  /** name==version from the cache, or installed once however many deploys ask (null: the index's newest). */
  private async ensureExact(name: string, version: string | null): Promise<{ dir: string; version: string }> {
    const key = normalisedName(name);
    if (version !== null) {
      const dir = path.join(this.cacheDir, `${key}@${version}`);
      if (existsSync(path.join(dir, ".complete"))) {
        await sealOnce(dir);
        return { dir, version };
      }
    }
    const lockKey = `${key}@${version ?? ""}`;
    let p = this.locks.get(lockKey);
    if (!p) {
      p = this.install(name, version).finally(() => this.locks.delete(lockKey));
      this.locks.set(lockKey, p);
    }
    return p;
  }

  /**
   * The newest release of an unpinned package as the index says now (pip resolves it, respecting
   * yanked releases and Requires-Python; an sdist's metadata build runs in the sandbox), or null
   * when the index cannot say. pip runs from the platform's resolver environment, which holds
   * only pip: no installed release's code (its .pth files, a wheel that replaced pip's own files)
   * gets a say, and nothing is writable but the sandbox's own /tmp.
   */
  private async newestRelease(name: string): Promise<string | null> {
    const key = normalisedName(name);
    try {
      const resolver = await this.resolver();
      const out = await this.o.sandbox.run(
        {
          argv: [
            ...this.pipInstall(path.join(resolver, "bin", "python")),
            "--dry-run",
            "--no-deps",
            "--ignore-installed",
            "--quiet",
            "--retries",
            "0",
            "--timeout",
            "15",
            "--report",
            "-",
            name,
          ],
          env: this.pipEnv("/tmp"),
          cwd: "/tmp",
          writable: [],
          readOnly: [resolver],
          network: true,
          identity: this.o.uids.installer(),
          limits: this.o.limits,
          label: "install",
        },
        60_000,
      );
      const report = JSON.parse(out.slice(out.indexOf("{"), out.lastIndexOf("}") + 1)) as {
        install?: Array<{ metadata?: { name?: string; version?: string } }>;
      };
      const found = report.install?.find((i) => normalisedName(i.metadata?.name ?? "") === key)?.metadata?.version;
      if (typeof found !== "string" || !SAFE_VERSION.test(found)) throw new Error("pip's report names no usable version");
      return found;
    } catch (e) {
      this.o.log.warn({ package: name, err: (e as Error).message }, "could not ask the PyPI index for the newest release");
      return null;
    }
  }

  private resolverDir?: Promise<string>;

  /** The platform's environment with pip alone (created once, sandboxed, from the machine's ensurepip). */
  private resolver(): Promise<string> {
    this.resolverDir ??= (async () => {
      const dir = path.join(this.cacheDir, ".resolver");
      if (existsSync(path.join(dir, ".complete"))) return dir;
      // --dry-run and --report need pip 22.2: an older ensurepip (Ubuntu 22.04's 22.0) is upgraded from the index.
      const recent = "import pip, sys; sys.exit(0 if tuple(int(x) for x in pip.__version__.split('.')[:2]) >= (22, 2) else 1)";
      const fill = async (step: (label: string, argv: string[]) => Promise<string>, venv: string) => {
        const python = path.join(venv, "bin", "python");
        await step("Checking pip", [python, "-I", "-c", recent]).catch(async (e: unknown) => {
          if (!(e instanceof StepFailed)) throw e;
          await step("Upgrading pip", [...this.pipInstall(python), "--upgrade", "pip>=22.2"]);
        });
      };
      return this.envs.inNewEnvironment("the resolver environment", fill, async () => dir);
    })().catch((e: unknown) => {
      this.resolverDir = undefined;
      throw e;
    });
    return this.resolverDir;
  }

  /** Installs name (==version, or the index's newest) into a new environment and moves it to its name@version folder. */
  private async install(name: string, version: string | null): Promise<{ dir: string; version: string }> {
    const key = normalisedName(name);
    const spec = `${name}${version ? `==${version}` : ""}`;
    const t = performance.now();
    let exact = version;
    const dir = await this.envs.inNewEnvironment(
      `the PyPI package ${spec}`,
      (step, venv) => step("pip install", [...this.pipInstall(path.join(venv, "bin", "python")), spec]),
      async (venv) => {
        const found = (await dists(await sitePackages(venv))).filter((d) => normalisedName(d.name) === key);
        if (found.length !== 1)
          throw new InstallError(
            `pip installed ${spec} but its metadata (${key}-*.dist-info) is ${found.length ? "there more than once" : "missing"}`,
          );
        // Pinned: the entry is named by what was asked for (==1.0 may install 1.0.0), so a later
        // request for the same pin finds it; unpinned: by the installed release's version.
        exact ??= found[0]!.version;
        if (!SAFE_VERSION.test(exact)) throw new InstallError(`pip installed ${spec} with a version that cannot name a folder`);
        return path.join(this.cacheDir, `${key}@${exact}`);
      },
    );
    this.o.log.info({ package: `${name}==${exact}`, ms: Math.round(performance.now() - t) }, "PyPI package installed");
    return { dir, version: exact! };
  }

  /**
   * The console script to run: `command` when some installed distribution (not pip's own
   * tooling) declares it, else the package's own script named like it, else its only one. Only
   * declared console scripts run: not pip, python or activate, which sit in the same folder.
   */
  private async consoleScript(venv: string, name: string, command: string | null): Promise<string> {
    const all = await dists(await sitePackages(venv));
    const scriptsOf = async (list: Dist[]) => (await Promise.all(list.map((d) => consoleScripts(d.dir)))).flat();
    const own = await scriptsOf(all.filter((d) => normalisedName(d.name) === normalisedName(name)));
    const allowed = command ? await scriptsOf(all.filter((d) => !TOOLING.has(normalisedName(d.name)))) : own;
    const wanted = command ? [command] : [name, name.toLowerCase(), normalisedName(name)];
    // uvx would refuse a package without a script of its name; its only script is what its publisher means.
    const pick = wanted.find((w) => allowed.includes(w)) ?? (!command && own.length === 1 ? own[0] : undefined);
    if (pick && (await tenantPathKind(venv, `bin/${pick}`)) === "file") return path.join(venv, "bin", pick);
    const available = own.length ? ` It provides: ${own.slice(0, 10).join(", ")}.` : " It provides no console script.";
    throw new InstallError(
      `The PyPI package ${name} has no command named ${command ?? name}.${available}${command ? "" : ' Name one with "uvx --from <package> <command>".'}`,
    );
  }
}
