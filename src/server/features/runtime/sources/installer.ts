import { relayMissing } from "../sandbox/relay.js";
import path from "node:path";
import { buildFromGit } from "./git/git-build.js";
import { IMAGE_TEXT, ImageCache } from "./image/image-cache.js";
import { caFiles } from "./install-env.js";
import type { CacheOptions } from "./cache-options.js";
import { NpmCache } from "./npm/npm-cache.js";
import { entryPoint, InstallError } from "./package-files.js";
import type { Identity } from "../sandbox/identity.js";
import { TenantFileError } from "../sandbox/tenant-files.js";
import type { Volumes } from "../sandbox/volumes.js";
import type { PythonRuntime } from "./python/python.js";
import type { HostedSource, Source } from "../runner.js";

export type { Source };

// Turns a deployment's source into a command to run. npm packages are installed once per
// name@version into a shared cache and reused: by npm, with the platform's configuration and no
// install scripts, in a sandbox of the platform's own (its uid, nothing of the host but the
// cache). A git repository is cloned, installed and built in the deployment's own sandbox, as the
// deployment's uid: whatever its .npmrc, lockfile or build script makes npm or git run, runs
// there. The platform reads a repository's files only without following links (tenant-files.ts).
// The npm cache is npm-cache.ts; the repository's build, git-build.ts.

export interface Prepared {
  /** node and its arguments: the server's entry point and args */
  argv: string[];
  workDir: string;
  /** where it starts (default workDir): a Python repository's checkout, so `python -m` finds its modules */
  cwd?: string;
  readOnly: string[];
  /** who the server runs as (null: the platform's own uid, where it cannot switch) */
  identity: Identity | null;
  /** lines for the deployment's output before the server's own (what of its image was left out) */
  notes?: string[];
  /**
   * a container image's `/` (its tree, under the deployment's writable layer where `writable`),
   * the folder of the volume seen at /data, the environment its configuration sets, and the port
   * it serves streamable HTTP on inside its sandbox (none: stdio)
   */
  image?: { root: string; writable: boolean; data: string; env: Record<string, string>; port?: number };
}

export interface InstallerOptions extends CacheOptions {
  volumes: Volumes;
  /** IMAGE_INSECURE_REGISTRIES */
  insecureRegistries: string[];
  /** IMAGE_REGISTRY_AUTH_FILE (null: none) */
  registryAuthFile: string | null;
  /** IMAGE_MAX_FILES */
  maxFiles: number;
  allowFileGit: boolean;
  /** Python packages and repositories */
  python: PythonRuntime;
}

export { InstallError };

export class Installer {
  private readonly npm: NpmCache;
  private readonly images: ImageCache;

  constructor(private readonly o: InstallerOptions) {
    this.npm = new NpmCache(o);
    this.images = new ImageCache(o);
  }

  /** A deployment put to sleep: its volume is kept (unmounted) for its next start. */
  async suspend(id: string): Promise<void> {
    await this.o.volumes.unmount(id);
  }

  async remove(id: string): Promise<void> {
    await this.o.volumes.remove(id);
    await this.o.uids.release(id);
  }

  nodeArgv(entry: string, args: string[]): string[] {
    return [process.execPath, `--max-old-space-size=${Math.max(32, Math.floor(this.o.limits.memoryMb * 0.75))}`, entry, ...args];
  }

  /** `signal`: the deployment was stopped meanwhile; a running step is killed and nothing more starts. */
  async prepare(id: string, source: HostedSource, signal?: AbortSignal): Promise<Prepared> {
    const identity = await this.o.uids.forDeployment(id);
    const workDir = await this.o.volumes.ensure(id, identity);
    try {
      // A registry install is shared with other deployments: a stop only stops waiting for it.
      if (source.kind === "npm") return { ...(await abortable(this.npmCommand(source), signal)), workDir, identity };
      if (source.kind === "pypi") return { ...(await abortable(this.o.python.command(source), signal)), workDir, identity };
      if (source.kind === "image") {
        const img = await abortable(this.images.ensure(source.image), signal);
        // docker's rule: the entrypoint stays, arguments given replace the image's Cmd.
        const argv = [...img.entrypoint, ...(source.args.length ? source.args : img.cmd)];
        if (argv.length === 0) throw new InstallError(IMAGE_TEXT.noCommand(source.image));
        const noRelay = source.port ? relayMissing() : null;
        if (noRelay) throw new InstallError(`Images that speak HTTP cannot run on this machine: ${noRelay}`);
        const layer = await this.o.volumes.imageRoot(id, img.root, img.digest, identity);
        const notes = img.envLeftOut ? [IMAGE_TEXT.envLeftOut(img.envLeftOut)] : [];
        return { argv, workDir, cwd: img.cwd, readOnly: [], identity, notes, image: { ...layer, env: img.env, port: source.port } };
      }
      return {
        ...(await buildFromGit(this.o, (entry, args) => this.nodeArgv(entry, args), id, workDir, identity, source, signal)),
        workDir,
        identity,
      };
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

  ensurePackage(name: string, version: string | null): Promise<string> {
    return this.npm.ensurePackage(name, version);
  }
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
