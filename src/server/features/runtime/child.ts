import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { bwrapArgs, type SandboxInfo, type SandboxSpec } from "./sandbox.js";

// One hosted MCP server process: newline-delimited JSON-RPC on stdin/stdout, stderr as its log.
// Output is drained continuously into bounded buffers so a chatty or stuck reader never blocks
// the child, and secrets are masked before a line is kept.

const MAX_LINE = 8 * 1024 * 1024;
const LOG_LINES = 200;
const LOG_LINE_CHARS = 2000;

export interface LaunchSpec extends SandboxSpec {
  /** the child's whole environment (its own secrets plus a minimal PATH/HOME) */
  env: Record<string, string>;
  /** values masked in every kept log line */
  secrets: string[];
  memoryMb: number;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** set when the platform killed it (memory limit) */
  reason?: string;
}

/** Control characters (ANSI escapes, NULs, bells) shown as \xNN so logs render inert. */
export function escapeControl(s: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

export function maskSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) if (s.length >= 3) out = out.split(s).join("••••••");
  return out;
}

/** Process start time in clock ticks since boot (field 22 of /proc/pid/stat); pairs with a pid. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function treeRssBytes(pid: number, depth = 0): number {
  if (depth > 8) return 0;
  let total = 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    for (const k of kids ? kids.split(" ") : []) total += treeRssBytes(Number(k), depth + 1);
  } catch {
    // gone already
  }
  return total;
}

export class Child {
  readonly pid: number;
  readonly pidStart: string | null;
  readonly exited: Promise<ExitInfo>;
  private readonly logBuf: string[] = [];
  private listeners = new Set<(m: JSONRPCMessage) => void>();
  private pending = "";
  private killReason: string | undefined;
  private watchdog: NodeJS.Timeout;
  private done = false;

  private constructor(
    private readonly proc: ChildProcess,
    private readonly spec: LaunchSpec,
    private readonly cleanup: () => void,
  ) {
    this.pid = proc.pid!;
    this.pidStart = processStartTime(this.pid);
    proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => this.onStdout(chunk));
    let errPending = "";
    proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      errPending += chunk;
      const lines = errPending.split("\n");
      errPending = lines.pop()!.slice(-MAX_LINE);
      for (const l of lines) this.log(l);
    });
    proc.stdin!.on("error", () => {}); // a dead child's stdin: the exit handler reports it
    this.watchdog = setInterval(() => {
      if (treeRssBytes(this.pid) > spec.memoryMb * 1024 * 1024) {
        this.killReason = `Stopped: used more than the ${spec.memoryMb} MB memory limit`;
        this.signal("SIGKILL");
      }
    }, 2000).unref();
    this.exited = new Promise((resolve) => {
      proc.once("exit", (code, signal) => {
        this.done = true;
        clearInterval(this.watchdog);
        if (errPending) this.log(errPending);
        this.cleanup();
        resolve({ code, signal, reason: this.killReason });
      });
    });
  }

  /** Starts the program (sandboxed when the platform has bwrap); resolves once it is running. */
  static async launch(info: SandboxInfo, spec: LaunchSpec): Promise<Child> {
    const stdio: ("pipe" | "ignore")[] = ["pipe", "pipe", "pipe"];
    let file = spec.argv[0]!;
    let args = spec.argv.slice(1);
    const egress = info.kind === "bwrap" && spec.network && info.network === "egress";
    if (info.kind === "bwrap") {
      file = "bwrap";
      args = bwrapArgs(info, spec, egress ? { infoFd: 3, blockFd: 4 } : undefined);
      if (egress) stdio.push("pipe", "pipe");
    }
    // detached: its own process group, so stop() reaches every process it started.
    const proc = spawn(file, args, { cwd: spec.workDir, env: spec.env, stdio, detached: true });
    await new Promise<void>((resolve, reject) => {
      proc.once("spawn", resolve);
      proc.once("error", reject);
    });
    let slirp: ChildProcess | undefined;
    if (egress) slirp = await attachEgress(proc).catch((e: unknown) => {
      proc.kill("SIGKILL");
      throw e;
    });
    return new Child(proc, spec, () => slirp?.kill("SIGKILL"));
  }

  private onStdout(chunk: string) {
    this.pending += chunk;
    if (this.pending.length > MAX_LINE && !this.pending.includes("\n")) {
      this.log("[switchboard] dropped an output line longer than 8 MB");
      this.pending = "";
      return;
    }
    const lines = this.pending.split("\n");
    this.pending = lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        msg = undefined;
      }
      // Only JSON objects are protocol; `0`, `null` or `[...]` printed by a server are log lines.
      if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
        this.log(line);
        continue;
      }
      for (const l of this.listeners) {
        try {
          l(msg as JSONRPCMessage);
        } catch (e) {
          // A listener's bug must never take the platform down with one server's output.
          this.log(`[switchboard] could not route a message: ${(e as Error).message}`);
        }
      }
    }
  }

  private log(line: string) {
    const kept = escapeControl(maskSecrets(line.replace(/\r$/, ""), this.spec.secrets)).slice(0, LOG_LINE_CHARS);
    this.logBuf.push(kept);
    if (this.logBuf.length > LOG_LINES) this.logBuf.splice(0, this.logBuf.length - LOG_LINES);
  }

  logs(): string[] {
    return [...this.logBuf];
  }

  onMessage(cb: (m: JSONRPCMessage) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  send(msg: JSONRPCMessage): void {
    if (this.done) throw new Error("the server has exited");
    this.proc.stdin!.write(JSON.stringify(msg) + "\n");
  }

  get running(): boolean {
    return !this.done;
  }

  rssBytes(): number {
    return treeRssBytes(this.pid);
  }

  private signal(sig: NodeJS.Signals) {
    try {
      process.kill(-this.pid, sig);
    } catch {
      // already gone
    }
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period. */
  async stop(graceMs = 3000): Promise<ExitInfo> {
    if (!this.done) {
      this.proc.stdin!.end();
      this.signal("SIGTERM");
      const t = setTimeout(() => this.signal("SIGKILL"), graceMs);
      await this.exited;
      clearTimeout(t);
    }
    return this.exited;
  }
}

/** Gives a sandboxed child its own NATed network: the outside is reachable, the host's loopback is not. */
async function attachEgress(proc: ChildProcess): Promise<ChildProcess> {
  const infoStream = proc.stdio[3] as NodeJS.ReadableStream;
  const childPid = await new Promise<number>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error("bwrap did not report its child")), 10_000);
    infoStream.setEncoding("utf8");
    infoStream.on("data", (d: string) => {
      text += d;
      const m = /"child-pid":\s*(\d+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  const slirp = spawn("slirp4netns", ["--configure", "--mtu=65520", "--disable-host-loopback", "--ready-fd=3", "--exit-fd=4", String(childPid), "tap0"], {
    // fd 4 closes when this process dies (even by kill -9), which ends slirp4netns too.
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
    env: { PATH: "/usr/bin:/bin" },
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("slirp4netns did not become ready")), 10_000);
    slirp.once("error", reject);
    slirp.once("exit", (code) => reject(new Error(`slirp4netns exited with code ${code}`)));
    (slirp.stdio[3] as NodeJS.ReadableStream).once("data", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  slirp.removeAllListeners("exit");
  // Unblock bwrap: it starts the program once it reads from its block fd.
  (proc.stdio[4] as NodeJS.WritableStream).write("1");
  return slirp;
}
