import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, statfsSync } from "node:fs";
import os from "node:os";
import type { Cgroup, Limits } from "./cgroup.js";
import type { Identity } from "./identity.js";

// A sandboxed process once it runs: its exit (with the limit that stopped it, if one did) and the
// watchdog that enforces what the kernel does not and tells the owner when a limit bites.

export interface LaunchSpec {
  /** the program and its arguments (no shell, ever) */
  argv: string[];
  /** the program's whole environment */
  env: Record<string, string>;
  cwd: string;
  writable: string[];
  readOnly: string[];
  /** whether this step may use the network (the sandbox decides how) */
  network: boolean;
  identity: Identity | null;
  limits: Limits;
  /** names the launch's cgroup (a deployment id, "install", ...) */
  label: string;
  /** a container image's unpacked tree: bound read-only as `/` in place of the host's system */
  root?: string;
  /** the root is the deployment's own writable layer over the tree (bound read-write) */
  rootWritable?: boolean;
  /** an HTTP server inside: a relay from this unix socket to 127.0.0.1:port in the sandbox (relay.ts) */
  relay?: { socket: string; port: number };
  /** writable folders bound elsewhere inside (an image's deployment volume at /data) */
  binds?: { source: string; dest: string }[];
  /** the deployment's own volume, watched for a full disk */
  disk?: { path: string; limitMb: number };
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** why the platform stopped it (a limit), when it did */
  reason?: string;
  /** starting it again cannot help (a connection whose sign-in the server no longer takes): it fails, no restart */
  final?: boolean;
}

export const memoryLimitReason = (mb: number) => `Stopped: memory limit of ${mb} MB exceeded`;
export const processLimitNotice = (n: number) => `[switchboard] process limit of ${n} reached: starting another process or thread failed`;
export const diskLimitNotice = (mb: number) =>
  `[switchboard] disk limit of ${mb} MB reached: writing more fails with "No space left on device"`;

/**
 * How full a volume is, from statfs: 'full' when writing more fails or is about to (ext4 refuses a
 * write a little before its last block is gone, for metadata and reservations; a file is refused
 * once the inodes are gone, however much space is left), 'room' once there is clearly room again,
 * 'between' otherwise (so a deployment hovering at the limit is not told twice a second).
 */
export function volumeState(s: {
  bavail: number;
  blocks: number;
  bsize: number;
  ffree: number;
  files: number;
}): "full" | "room" | "between" {
  const free = s.bavail * s.bsize;
  const reserve = Math.max(1024 * 1024, (s.blocks * s.bsize) / 100);
  const inodes = Math.max(16, s.files / 100);
  if (free < reserve || (s.files > 0 && s.ffree < inodes)) return "full";
  return free > 2 * reserve && (s.files === 0 || s.ffree > 2 * inodes) ? "room" : "between";
}

/** RSS of a process and everything below it, through the children of every thread (a worker thread's children too). */
export function treeRssBytes(pid: number): number {
  let total = 0;
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length && seen.size < 4096) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0) * 1024;
      for (const tid of readdirSync(`/proc/${p}/task`)) {
        const kids = readFileSync(`/proc/${p}/task/${tid}/children`, "utf8").trim();
        if (kids) stack.push(...kids.split(" ").map(Number));
      }
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

function tmpfsBytes(pid: number): number {
  let total = 0;
  for (const dir of ["tmp", "dev/shm"]) {
    try {
      const s = statfsSync(`/proc/${pid}/root/${dir}`);
      total += (s.blocks - s.bfree) * s.bsize;
    } catch {
      // gone
    }
  }
  return total;
}

/** A running sandboxed process: its stdio, its exit, and the limits watched while it runs. */
export class Launched {
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  private killReason: string | undefined;
  private readonly watchdog: NodeJS.Timeout;
  private noticed = { processes: false, disk: false };
  private notice: (line: string) => void = () => {};

  constructor(
    readonly proc: ChildProcess,
    /** the sandbox's first process (pid 1 inside), or the program itself without bubblewrap */
    private readonly innerPid: number,
    private readonly spec: LaunchSpec,
    private readonly cg: Cgroup | null,
    /** helpers that end with it (slirp4netns, an HTTP server's relay) */
    slirp: ChildProcess | undefined,
    /** bwrap reports a program killed by signal N as exit code 128 + N, as shells do */
    signalCodes = false,
    relay?: ChildProcess,
  ) {
    this.pid = proc.pid!;
    this.watchdog = setInterval(() => void this.check(), 1000).unref();
    this.exited = new Promise((resolve) => {
      proc.once("exit", (rawCode, rawSignal) => {
        const bySignal =
          signalCodes && rawCode !== null && rawCode > 128
            ? Object.entries(os.constants.signals).find(([, n]) => n === rawCode - 128)?.[0]
            : undefined;
        const code = bySignal ? null : rawCode;
        const signal = bySignal ?? rawSignal;
        clearInterval(this.watchdog);
        // A program that fills its disk and dies of it (or ends) before the next look is told too:
        // the notice lands before its output is kept with the exit.
        this.checkDisk();
        slirp?.kill("SIGKILL");
        relay?.kill("SIGKILL");
        let reason = this.killReason;
        if (!reason && cg && cg.oomKills() > 0) reason = memoryLimitReason(spec.limits.memoryMb);
        void (cg?.remove() ?? Promise.resolve()).finally(() => resolve({ code, signal, reason }));
      });
    });
  }

  /** Lines for the deployment's output when a limit bites (process or disk limit). */
  onNotice(cb: (line: string) => void): void {
    this.notice = cb;
  }

  private async check() {
    const { limits } = this.spec;
    if (this.cg) {
      // Under v1 the kernel kills one process; the deployment goes as a whole, as under v2.
      if (this.cg.oomKills() > 0) return this.stopFor(memoryLimitReason(limits.memoryMb));
      if (!this.noticed.processes && this.cg.processLimitHits() > 0) {
        this.noticed.processes = true;
        this.notice(processLimitNotice(limits.maxProcesses));
      }
    } else if (treeRssBytes(this.pid) + tmpfsBytes(this.innerPid) > limits.memoryMb * 1024 * 1024) {
      return this.stopFor(memoryLimitReason(limits.memoryMb));
    }
    this.checkDisk();
  }

  /** Tells the owner when the volume is full: once each time it fills (after it had room again). */
  private checkDisk() {
    const { disk } = this.spec;
    if (!disk) return;
    try {
      const state = volumeState(statfsSync(disk.path));
      if (state === "room") this.noticed.disk = false;
      if (state === "full" && !this.noticed.disk) {
        this.noticed.disk = true;
        this.notice(diskLimitNotice(disk.limitMb));
      }
    } catch {
      // unmounted meanwhile
    }
  }

  private stopFor(reason: string) {
    this.killReason ??= reason;
    this.kill();
  }

  /** Memory in use: every process of the sandbox (resident), like `ps` would add it up. */
  rssBytes(): number {
    return treeRssBytes(this.pid);
  }

  /** A signal to the whole process group (SIGTERM lets a server finish; bwrap's death takes the sandbox with it). */
  signal(sig: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, sig);
    } catch {
      // already gone
    }
  }

  kill(): void {
    this.signal("SIGKILL");
    this.cg?.killAll();
  }
}
