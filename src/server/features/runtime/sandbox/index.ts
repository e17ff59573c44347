import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { bwrapArgs, descriptorArgs, sandboxEtc, type BwrapFeatures, type MountPlan } from "./bwrap.js";
import { hostSpawn, spawnUnsandboxed } from "./host-process.js";
import { Cgroup, type CgroupSupport } from "./cgroup.js";
import { startRelay } from "./relay.js";
import { attachEgress } from "./egress.js";
import { closeInheritedFds } from "./fds.js";
import { procMasks } from "./proc-masks.js";
import { Launched, type LaunchSpec } from "./launched.js";
import type { SandboxInfo } from "~/shared/deployments.js";

// Every process run on a tenant's behalf (the platform's installs, a repository's clone, install
// and build, the server itself) starts here. With bubblewrap: spawned as the deployment's
// unprivileged uid, blocked until the platform has put it in its cgroup and attached its network,
// under the seccomp filter, with only stdin, stdout and stderr open.

export type { Limits } from "./cgroup.js";
export {
  diskLimitNotice,
  Launched,
  memoryLimitReason,
  processLimitNotice,
  treeRssBytes,
  type ExitInfo,
  type LaunchSpec,
} from "./launched.js";
export type { Identity } from "./identity.js";

export type { Guarantee, GuaranteeKey, SandboxInfo } from "~/shared/deployments.js";

export interface SandboxParts {
  info: SandboxInfo;
  /** userns false: bubblewrap without a user namespace (only where the kernel refuses one; reported) */
  bwrap?: { bin: string; features: BwrapFeatures; userns: boolean };
  /** host uid of root inside the sandboxes' user namespaces (root platform), see identity.ts */
  setupUid: number | null;
  seccomp?: Buffer;
  cgroups: CgroupSupport | null;
  prlimit?: string;
  /** RLIMIT_NPROC stands in for a pids cgroup (only with an own uid per deployment) */
  nprocFallback: boolean;
  egressAllow: string[];
  /** root-owned folder of the sandboxes' /etc files */
  etcDir: string;
  /** folders inside the visible system that are none of a tenant's business (see bwrap.ts) */
  hide: string[];
}

export class StepError extends Error {}

export class Sandbox {
  constructor(private readonly p: SandboxParts) {}

  get info(): SandboxInfo {
    return this.p.info;
  }

  /** Starts `spec.argv` sandboxed; resolves once it runs (placed in its cgroup, network attached). */
  async launch(spec: LaunchSpec): Promise<Launched> {
    // Nothing the platform inherited can reach the program (see fds.ts); cheap, so done each time.
    closeInheritedFds();
    const cg = this.p.cgroups ? await Cgroup.create(this.p.cgroups, spec.label, spec.limits) : null;
    try {
      if (!this.p.bwrap) return await this.launchPlain(spec, cg);
      return await this.launchBwrap(this.p.bwrap, spec, cg);
    } catch (e) {
      await cg?.remove();
      throw e;
    }
  }

  private async launchPlain(spec: LaunchSpec, cg: Cgroup | null): Promise<Launched> {
    // An image's programs expect its tree as their root: only bubblewrap gives them one.
    if (spec.root) throw new Error("Container images run only in the bubblewrap sandbox, which this machine does not have");
    if (spec.relay) throw new Error("Servers that speak HTTP run only in the bubblewrap sandbox, which this machine does not have");
    const proc = spawnUnsandboxed(spec.argv[0]!, spec.argv.slice(1), spec.env, spec.cwd);
    for (const s of proc.stdio) (s as NodeJS.EventEmitter | null)?.on("error", () => {});
    await spawned(proc);
    await cg?.join(proc.pid!);
    return new Launched(proc, proc.pid!, spec, cg, undefined);
  }

  private async launchBwrap(bw: NonNullable<SandboxParts["bwrap"]>, spec: LaunchSpec, cg: Cgroup | null): Promise<Launched> {
    const egress = spec.network && this.p.info.network === "egress";
    const base = {
      cwd: spec.cwd,
      writable: spec.writable,
      readOnly: spec.readOnly,
      root: spec.root,
      rootWritable: spec.rootWritable,
      binds: spec.binds,
      etc: await sandboxEtc(this.p.etcDir, spec.identity, egress),
      hide: this.p.hide,
      masks: await procMasks(this.p.etcDir, spec.limits),
      tmpBytes: spec.limits.memoryMb * 1024 * 1024,
      network: spec.network && this.p.info.network === "host" ? ("host" as const) : ("own" as const),
    };
    // With an identity (a root platform): that uid inside and outside, the namespace's root mapped
    // to the set-up uid. Without (a platform that is not root): root inside, the platform's uid outside.
    const inside = !bw.userns ? null : spec.identity ? { uid: spec.identity.uid, gid: spec.identity.gid } : { uid: 0, gid: 0 };
    // Root mapping its own uid would make the sandbox host root: a root platform always names an identity.
    if (inside && !spec.identity && process.getuid?.() === 0) throw new Error("a sandbox launched by root needs an unprivileged identity");
    const plan: MountPlan = { ...base, user: inside };
    let next = 5;
    const userns = inside ? next++ : undefined;
    const seccomp = this.p.seccomp ? next++ : undefined;
    const fds = { info: 3, block: 4, userns, seccomp, args: next++ };
    // The program's environment and working directory go to bwrap through a descriptor, applied inside the sandbox.
    const inner = descriptorArgs(spec.env, plan.cwd);
    let file = bw.bin;
    let args = bwrapArgs(bw.features, plan, fds, spec.argv);
    if (this.p.prlimit) {
      // No core dumps (a crash writes nothing and runs no host handler); processes by uid where no cgroup counts them.
      const nproc = !cg && this.p.nprocFallback ? [`--nproc=${spec.limits.maxProcesses}`] : [];
      args = ["--core=0", ...nproc, "--", file, ...args];
      file = this.p.prlimit;
    }
    const stdio = Array.from({ length: next }, () => "pipe" as const);
    const ids = inside && spec.identity ? { uid: spec.identity.uid, gid: spec.identity.gid } : {};
    // detached: its own process group, so a signal reaches bwrap and the program together. prlimit
    // and bwrap themselves run with the platform's environment (host-process.ts), never the program's.
    const proc = hostSpawn(file, args, { cwd: "/", stdio, detached: true, ...ids });
    const fd = (n: number) => (proc.stdio as unknown as (NodeJS.ReadWriteStream | null)[])[n]!;
    // These are socketpairs: bwrap closing one with our bytes unread resets it. The exit says what happened.
    for (const s of proc.stdio) (s as NodeJS.EventEmitter | null)?.on("error", () => {});
    let slirp: ChildProcess | undefined;
    let relay: ChildProcess | undefined;
    try {
      await spawned(proc);
      fd(fds.args).end(inner);
      if (fds.seccomp !== undefined) fd(fds.seccomp).end(this.p.seccomp!);
      const pid = await childPid(proc);
      if (inside && fds.userns !== undefined) {
        writeIdMaps(pid, inside, spec.identity ? this.p.setupUid : null);
        fd(fds.userns).end("1");
      }
      await cg?.join(proc.pid!);
      await cg?.join(pid);
      if (egress) {
        slirp = await attachEgress({
          pid,
          userns: inside !== null,
          identity: inside ? spec.identity : null,
          allow: this.p.egressAllow,
        });
        // The network stack works for this deployment: its memory counts against it.
        await cg?.join(slirp.pid!).catch(() => {});
      }
      if (spec.relay) relay = await startRelay({ pid, userns: inside !== null, identity: inside ? spec.identity : null, ...spec.relay });
      // Unblock: bwrap starts the program once it reads from its block fd.
      fd(fds.block).end("1");
      return new Launched(proc, pid, spec, cg, slirp, true, relay);
    } catch (e) {
      slirp?.kill("SIGKILL");
      relay?.kill("SIGKILL");
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {
        // never started
      }
      throw new Error(`${(e as Error).message}${await leftoverStderr(proc)}`);
    }
  }

  /**
   * Runs a one-shot step (install, build) to completion; throws StepError with the tail of its
   * output on failure. `signal` kills it (a deployment stopped meanwhile, a limit); its reason is the error.
   */
  async run(spec: LaunchSpec, timeoutMs: number, signal?: AbortSignal): Promise<string> {
    return (await this.step(spec, timeoutMs, signal)).output;
  }

  /**
   * A step whose standard output is its answer (a registry's manifest, a version): stdout alone,
   * at most `maxBytes` of it (more fails the step, which is killed at once), the platform's to
   * read as data.
   */
  async capture(spec: LaunchSpec, timeoutMs: number, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
    return (await this.step(spec, timeoutMs, signal, maxBytes)).stdout;
  }

  private async step(
    spec: LaunchSpec,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    stdoutBytes?: number,
  ): Promise<{ output: string; stdout: Buffer }> {
    signal?.throwIfAborted();
    const l = await this.launch(spec);
    let why: string | undefined;
    const stop = (reason: string) => {
      why ??= reason;
      l.kill();
    };
    const onAbort = () => stop(`stopped: ${String(signal!.reason)}`);
    signal?.addEventListener("abort", onAbort);
    // Stopped while it was being launched: killed now, not left to finish.
    if (signal?.aborted) onAbort();
    l.proc.stdin!.end();
    let out = "";
    const keep = (d: Buffer) => (out = (out + d.toString("utf8")).slice(-64 * 1024));
    const chunks: Buffer[] = [];
    let size = 0;
    l.proc.stdout!.on("data", (d: Buffer) => {
      if (stdoutBytes === undefined) return keep(d);
      size += d.length;
      if (size > stdoutBytes) return stop(`its answer was larger than ${stdoutBytes} bytes`);
      chunks.push(d);
    });
    l.proc.stderr!.on("data", keep);
    const timer = setTimeout(() => stop(`timed out after ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
    const exit = await l.exited;
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    if (exit.code === 0 && !exit.reason && !why) return { output: out, stdout: Buffer.concat(chunks) };
    const reason = exit.reason ?? why ?? (exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`);
    const tail = out.trim().split("\n").slice(-6).join("\n");
    throw new StepError(`${reason}${tail ? `: ${tail}` : ""}`);
  }
}

/**
 * The user namespace's maps, written while bwrap waits. A root platform maps the program's uid to
 * itself and the namespace's root (bubblewrap's set-up) to the set-up uid; a platform that is not
 * root may only map its own uid, to root inside. setgroups stays denied either way.
 */
function writeIdMaps(pid: number, inside: { uid: number; gid: number }, setupUid: number | null): void {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  writeFileSync(`/proc/${pid}/setgroups`, "deny");
  if (setupUid !== null && uid === 0) {
    writeFileSync(`/proc/${pid}/uid_map`, `0 ${setupUid} 1\n${inside.uid} ${inside.uid} 1\n`);
    writeFileSync(`/proc/${pid}/gid_map`, `0 ${setupUid} 1\n${inside.gid} ${inside.gid} 1\n`);
  } else {
    writeFileSync(`/proc/${pid}/uid_map`, `0 ${uid} 1\n`);
    writeFileSync(`/proc/${pid}/gid_map`, `0 ${gid} 1\n`);
  }
}

/** What bubblewrap said before it gave up (nobody reads its stderr until the program runs). */
async function leftoverStderr(proc: ChildProcess): Promise<string> {
  await new Promise((r) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return r(null);
    proc.once("close", r);
    setTimeout(r, 1000).unref();
  });
  const text = String(proc.stderr?.read() ?? "").trim();
  return text ? `: ${text.split("\n").slice(-3).join(" ")}` : "";
}

function spawned(proc: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    proc.once("spawn", resolve);
    proc.once("error", reject);
  });
}

/** bwrap reports the pid of the sandbox's first process on its info fd. */
function childPid(proc: ChildProcess): Promise<number> {
  const info = proc.stdio[3] as NodeJS.ReadableStream;
  return new Promise<number>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error("bubblewrap did not start the sandbox within 10 s")), 10_000);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`bubblewrap exited with code ${code} before starting the sandbox`));
    });
    info.setEncoding("utf8");
    info.on("data", (d: string) => {
      text += d;
      const m = /"child-pid":\s*(\d+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
}
