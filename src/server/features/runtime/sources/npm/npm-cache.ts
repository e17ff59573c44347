// The shared cache of npm packages: each name@version installed once, by npm with the platform's
// configuration and no install scripts, in a sandbox of the platform's own (its installer uid,
// nothing of the host but the cache), its disk watched; tags resolved to exact versions.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { caFiles, installEnv } from "../install-env.js";
import { cacheName, diskWatch, InstallError, newest, markSealed, sealOnce, sealTree, treeBytes, type WatchStop } from "../package-files.js";
import { StepError } from "../../sandbox/index.js";
import { removeTree } from "../../sandbox/tenant-files.js";
import type { CacheOptions } from "../cache-options.js";

const TAG_TTL_MS = 60 * 60 * 1000;
/** `npm view ... version --json`: a version, or a list of them (a range), never megabytes */
const VIEW_MAX_BYTES = 1024 * 1024;
const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export class NpmCache {
  private readonly locks = new Map<string, Promise<string>>();
  private readonly tags = new Map<string, { version: string; at: number }>();

  constructor(private readonly o: CacheOptions) {}

  /**
   * `npm view <name>@<tag> version --json`, in the installer's sandbox like the install: the
   * registry's answer is anyone's to publish, so no host process parses it. Its npm cache is a
   * folder of this one question, gone with it.
   */
  private async view(key: string): Promise<string> {
    const tmp = path.join(this.o.packagesDir, `.view-${randomBytes(6).toString("hex")}`);
    const installer = this.o.uids.installer();
    await fs.mkdir(tmp, { recursive: true, mode: 0o700 });
    if (installer) await fs.chown(tmp, installer.uid, installer.gid);
    try {
      const out = await this.o.sandbox.capture(
        {
          argv: ["npm", "view", key, "version", "--json"],
          env: {
            ...installEnv(),
            HOME: tmp,
            npm_config_cache: tmp,
            npm_config_userconfig: "/dev/null",
            npm_config_update_notifier: "false",
          },
          cwd: tmp,
          writable: [tmp],
          readOnly: caFiles(),
          network: true,
          identity: installer,
          limits: this.o.limits,
          label: "install",
        },
        30_000,
        VIEW_MAX_BYTES,
      );
      return out.toString("utf8");
    } catch (e) {
      if (e instanceof StepError) throw new InstallError(`npm view failed: ${e.message}`);
      throw e;
    } finally {
      await removeTree(tmp);
    }
  }

  /** The exact version a tag or empty version means now; remembered for an hour so redeploys skip the network. */
  private async resolveVersion(name: string, version: string | null): Promise<string> {
    const spec = version ?? "latest";
    if (EXACT.test(spec)) return spec;
    const key = `${name}@${spec}`;
    const known = this.tags.get(key);
    if (known && Date.now() - known.at < TAG_TTL_MS) return known.version;
    try {
      const parsed = JSON.parse(await this.view(key)) as string | string[];
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
    if (existsSync(path.join(dir, ".complete"))) {
      await sealOnce(dir);
      return dir;
    }
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
      // Every deployment's uid reads the cache; only the installer writes it, whatever modes the package asked for.
      await sealTree(prefix);
      // wx: created here or not at all, never through a link the install might have left.
      await fs.writeFile(path.join(prefix, ".complete"), new Date().toISOString(), { flag: "wx" });
      await fs.rename(prefix, dir).catch((e: NodeJS.ErrnoException) => {
        if (!existsSync(path.join(dir, ".complete"))) throw e; // someone else finished first
      });
      await markSealed(dir);
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
}
