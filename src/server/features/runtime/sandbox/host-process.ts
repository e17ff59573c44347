// Every process the platform starts on the host starts here: the sandbox's launcher (prlimit and
// bubblewrap), its network and relay helpers (slirp4netns, nsenter with ip or socat), mounts and
// volumes, the removal of a tenant's tree, the runner's watchdog, the interpreter check. Each gets
// HOST_ENV, the platform's own environment, and nothing else: not the platform's variables (its
// database URL, its secrets) and never a tenant's (an owner's keys, an image's Env). What the
// dynamic loader, libc or a tool honours (LD_*, GCONV_PATH, GLIBC_TUNABLES, MALLOC_*, TMPDIR,
// GIT_*, npm_config_*, ...) would otherwise run or steer a program outside the sandbox, before
// bubblewrap has set anything up. A sandboxed program's own environment is set inside its sandbox
// (bubblewrap's --clearenv and --setenv, given through a descriptor: index.ts). docs/hosting.md
// has the table of these processes and what a tenant's bytes can reach in each.
import { execFile, spawn, type ChildProcess, type StdioOptions } from "node:child_process";

/** PATH of host processes: the system's own folders only. */
export const SYS_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

/** The whole environment of a process the platform starts on the host. */
export const HOST_ENV: Readonly<Record<string, string>> = Object.freeze({ PATH: SYS_PATH });

export interface HostSpawnOptions {
  stdio?: StdioOptions;
  cwd?: string;
  /** its own process group (a signal to -pid reaches it and what it starts) */
  detached?: boolean;
  uid?: number;
  gid?: number;
  /** variables of the platform's own making on top of HOST_ENV (never a tenant's bytes) */
  extraEnv?: Readonly<Record<string, string>>;
}

const envOf = (extra?: Readonly<Record<string, string>>) => (extra ? { ...extra, ...HOST_ENV } : { ...HOST_ENV });

/** spawn with an argv array (never a shell) and HOST_ENV. */
export function hostSpawn(file: string, args: readonly string[], o: HostSpawnOptions = {}): ChildProcess {
  const { extraEnv, ...rest } = o;
  return spawn(file, args, { ...rest, env: envOf(extraEnv), shell: false });
}

export interface HostRunOptions {
  timeout?: number;
  maxBuffer?: number;
  uid?: number;
  gid?: number;
  extraEnv?: Readonly<Record<string, string>>;
}

/** Runs a host program to its end; resolves with its output, rejects (with it) on a failure. */
export function hostRun(file: string, args: readonly string[], o: HostRunOptions = {}): Promise<{ stdout: string; stderr: string }> {
  const { extraEnv, ...rest } = o;
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...rest, env: envOf(extraEnv), shell: false, killSignal: "SIGKILL" }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stdout, stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

/**
 * The one exception, SANDBOX=off (plain processes, for development only): the program runs as a
 * process of the host, so its own environment is its whole environment.
 */
export function spawnUnsandboxed(file: string, args: readonly string[], env: Record<string, string>, cwd: string): ChildProcess {
  return spawn(file, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true, shell: false });
}
