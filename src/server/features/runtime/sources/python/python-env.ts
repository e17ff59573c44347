// The machine's Python and pip: pip's command line and environment, and new virtual environments
// made in the install sandbox as the installer's uid (disk watched, checked, then moved into place).
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { diskWatch, InstallError, markSealed, sealTree, treeBytes, type WatchStop } from "../package-files.js";
import { findPython } from "./python-files.js";
import { SANDBOX_PATH } from "../../sandbox/bwrap.js";
import { StepError } from "../../sandbox/index.js";
import { removeTree, tenantPathKind } from "../../sandbox/tenant-files.js";
import type { CacheOptions } from "../cache-options.js";

/** The caches' options, and: */
export interface PythonOptions extends CacheOptions {
  /** PYPI_INDEX_URL: the simple-repository index every install reads */
  indexUrl: string;
  /** PYTHON: the interpreter (a name looked up on the sandbox's PATH, or an absolute path) */
  python: string;
}

/** A sandboxed step that ran and failed (pip could not install, say), as opposed to a limit or a refusal. */
export class StepFailed extends InstallError {}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export class PythonEnvironments {
  private interpreterPath?: Promise<string>;

  constructor(private readonly o: PythonOptions) {}

  /** The PyPI cache's folder: its name@version environments, and the one being made. */
  get cacheDir(): string {
    return path.join(this.o.packagesDir, "pypi");
  }

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
    return {
      PATH: SANDBOX_PATH,
      HOME: home,
      PIP_CONFIG_FILE: "/dev/null",
      PIP_NO_INPUT: "1",
      PIP_CACHE_DIR: path.join(home, ".cache", "pip"),
      PYTHONNOUSERSITE: "1",
    };
  }

  pipInstall(python: string): string[] {
    const index = new URL(this.o.indexUrl);
    // pip ignores a plain-HTTP index unless told to trust it; the operator's setting says so (never in production, see config.ts).
    const trusted = index.protocol === "http:" ? ["--trusted-host", index.host] : [];
    return [
      python,
      "-I",
      "-m",
      "pip",
      "install",
      "--no-input",
      "--disable-pip-version-check",
      "--no-warn-script-location",
      "--progress-bar",
      "off",
      "--index-url",
      this.o.indexUrl,
      ...trusted,
    ];
  }

  /**
   * A virtual environment made in a folder of its own (root's, passable; `work` inside is the
   * installer's), filled by `fill` in the install sandbox, then checked and moved to `target`'s
   * answer. Everything run in it may be package code (an sdist's build), so nothing after it
   * follows a link it may have left, and the disk it writes is watched while it runs.
   */
  async inNewEnvironment(
    what: string,
    fill: (step: (label: string, argv: string[]) => Promise<string>, venv: string) => Promise<unknown>,
    target: (venv: string) => Promise<string>,
  ): Promise<string> {
    const python = await this.interpreter();
    await fs.mkdir(this.cacheDir, { recursive: true });
    const tmp = path.join(this.cacheDir, `.tmp-${randomBytes(6).toString("hex")}`);
    const work = path.join(tmp, "work");
    const venv = path.join(work, "venv");
    const installer = this.o.uids.installer();
    await fs.mkdir(work, { recursive: true });
    await fs.chmod(tmp, 0o711);
    if (installer) await fs.chown(work, installer.uid, installer.gid);
    const watch = diskWatch(tmp, 2 * this.o.diskMb);
    const step = async (label: string, argv: string[]) => {
      try {
        return await this.o.sandbox.run(
          {
            argv,
            env: this.pipEnv(path.join(work, "home")),
            cwd: work,
            writable: [work],
            readOnly: [],
            network: true,
            identity: installer,
            limits: this.o.limits,
            label: "install",
          },
          this.o.timeoutMs,
          watch.signal,
        );
      } catch (e) {
        if (watch.signal.aborted) throw new InstallError((watch.signal.reason as WatchStop).explain(capitalised(what), this.o.diskMb));
        if (e instanceof StepError) throw new StepFailed(`${label} of ${what} failed: ${e.message}`);
        throw e;
      }
    };
    try {
      await step("Creating the virtual environment", [python, "-I", "-m", "venv", venv]);
      await fill(step, venv);
      if ((await tenantPathKind(work, "venv")) !== "dir") throw new InstallError(`The install of ${what} replaced its environment folder`);
      if ((await tenantPathKind(venv, ".complete")) !== "missing")
        throw new InstallError(`The install of ${what} left a .complete file of its own`);
      const dir = await target(venv);
      const mb = (await treeBytes(venv)) / 1024 / 1024;
      if (mb > this.o.diskMb)
        throw new InstallError(
          `${capitalised(what)} takes ${Math.ceil(mb)} MB with its dependencies, more than the ${this.o.diskMb} MB a deployment may use`,
        );
      // Every deployment's uid reads the cache; only the installer writes it, whatever modes the build left.
      await sealTree(venv);
      await fs.writeFile(path.join(venv, ".complete"), new Date().toISOString(), { flag: "wx" });
      await fs.rename(venv, dir).catch((e: NodeJS.ErrnoException) => {
        if (!existsSync(path.join(dir, ".complete"))) throw e; // someone else finished first
      });
      await markSealed(dir);
      return dir;
    } finally {
      watch.stop();
      await removeTree(tmp);
    }
  }
}
