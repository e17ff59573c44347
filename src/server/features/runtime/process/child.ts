import { readFileSync } from "node:fs";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { floodNotice, ReadGate } from "./flow.js";
import { escapeControl, maskSecrets, nestsDeeper } from "./lines.js";
import { ANSWER_TOO_DEEP, DEFAULT_FLOW, InputFull, type FlowLimits, type OutputStats, type ServerLink } from "../runner.js";
import type { ExitInfo, Launched, LaunchSpec, Sandbox } from "../sandbox/index.js";
import { HttpUpstream } from "../links/http-upstream.js";
import { MAX_LINE, OVERSIZED_ENDS, StdoutLines } from "./stdout-lines.js";

// One hosted MCP server process: newline-delimited JSON-RPC on stdin/stdout, stderr as its log.
// Output is drained continuously into bounded buffers so a chatty or stuck reader never blocks
// the child, and secrets are masked before a line is kept.
// Splitting stdout into lines is stdout-lines.ts.

const LOG_LINE_CHARS = 2000;
/** of an unfinished stderr line, what a log line keeps plus room to mask a secret (deploy keys are at most 4096 characters) */
const ERR_KEEP = LOG_LINE_CHARS + 4096;
/** Deeper JSON is refused before parsing: parsing millions of nested brackets takes seconds, and the result could not be serialized again. */
const MAX_DEPTH = 2000;

const LOG_LINES = 200;

export type { ExitInfo } from "../sandbox/index.js";

export interface ChildSpec extends LaunchSpec {
  /** values masked in every kept log line */
  secrets: string[];
  /** what it may make the platform hold and do for it (DEFAULT_FLOW when not given) */
  flow?: FlowLimits;
  /** with `relay`: how long a server that speaks HTTP may take to open its port */
  startTimeoutMs?: number;
  /** lines of the platform's for the output before the server's own */
  notes?: string[];
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

export class Child implements ServerLink {
  readonly pid: number;
  readonly pidStart: string | null;
  readonly exited: Promise<ExitInfo>;
  private readonly logBuf: string[] = [];
  private listeners = new Set<(m: JSONRPCMessage) => void>();
  private readonly out: StdoutLines;
  /** the start of an unfinished stderr line: only what a log line keeps (and room to mask a secret) */
  private errHead = "";
  private done = false;
  private readonly flow: FlowLimits;
  private readonly gate: ReadGate;
  private floodListeners = new Set<(notice: string) => void>();
  private readonly stats = { lines: 0, bytes: 0, ns: 0n };
  /** a server that speaks streamable HTTP (through the sandbox's relay): its messages, its stdout only a log */
  private readonly upstream: HttpUpstream | null;

  private constructor(
    private readonly l: Launched,
    private readonly spec: ChildSpec,
  ) {
    const proc = l.proc;
    this.pid = l.pid;
    this.upstream = spec.relay
      ? new HttpUpstream({
          socket: spec.relay.socket,
          maxBodyBytes: MAX_LINE,
          startTimeoutMs: spec.startTimeoutMs ?? 30_000,
          onMessage: (m) => {
            let line: string;
            try {
              line = JSON.stringify(m);
            } catch (e) {
              return this.log(`[switchboard] could not read the server's answer: ${(e as Error).message}`);
            }
            // Counted like stdout for the metrics (the HTTP answers are bounded one by one instead of paced).
            this.stats.lines++;
            this.stats.bytes += line.length;
            this.onLine(line);
          },
          onLog: (line) => this.log(line),
        })
      : null;
    this.out = new StdoutLines({
      line: (line) => (this.upstream ? this.log(line) : this.onLine(line)),
      refuse: (head, end, message) => this.refuse(head, end, message),
      log: (note) => this.log(note),
    });
    this.pidStart = processStartTime(this.pid);
    // Whatever a server prints must never throw out of a stream handler: that would end the platform.
    const guarded = (f: (chunk: string) => void) => (chunk: string) => {
      try {
        f(chunk);
      } catch (e) {
        this.log(`[switchboard] could not read the server's output: ${(e as Error).message}`);
      }
    };
    this.flow = spec.flow ?? DEFAULT_FLOW;
    this.gate = new ReadGate(proc.stdout!, proc.stderr!, this.flow, () => {
      const notice = floodNotice(this.flow);
      this.log(notice);
      for (const f of this.floodListeners) f(notice);
    });
    proc.stdout!.setEncoding("utf8").on(
      "data",
      guarded((chunk) => this.feed(chunk)),
    );
    proc.stderr!.setEncoding("utf8").on(
      "data",
      guarded((chunk) => this.account(chunk.length, this.onStderr(chunk))),
    );
    proc.stdin!.on("error", () => {}); // a dead child's stdin: the exit handler reports it
    for (const note of spec.notes ?? []) this.log(note);
    l.onNotice((line) => this.log(line));
    proc.once("exit", () => {
      this.done = true;
      this.gate.close();
    });
    this.exited = l.exited.then((e) => {
      this.done = true;
      void this.upstream?.close();
      this.out.release();
      if (this.errHead) this.log(this.errHead);
      return e;
    });
  }

  /** Starts the program in the sandbox; resolves once it is running. */
  static async launch(sandbox: Sandbox, spec: ChildSpec): Promise<Child> {
    return new Child(await sandbox.launch(spec), spec);
  }

  /**
   * A chunk of stdout, at most LINES_PER_TURN lines at a time: a 64 KB read can hold thousands of
   * small messages, and handling them all at once would hold the event loop (every other
   * deployment's requests) for tens of milliseconds. The rest waits for the next turn, reading paused.
   */
  private feed(chunk: string) {
    const started = process.hrtime.bigint();
    const { lines, used } = this.out.take(chunk);
    this.stats.ns += process.hrtime.bigint() - started;
    this.account(used, lines);
    if (used === chunk.length) return;
    this.gate.carry(() => {
      try {
        this.feed(chunk.slice(used));
      } catch (e) {
        this.log(`[switchboard] could not read the server's output: ${(e as Error).message}`);
      }
    });
  }

  /**
   * What was just read is spent from the server's budget; once it is gone, the platform stops
   * reading the server's stdout and stderr until it refills (the server's writes then wait in its
   * pipes). Held back without a break for DEPLOY_FLOOD_STOP_MS, the server is flooding: its
   * listeners are told, and the runner stops it as failed.
   */
  private account(chars: number, lines: number) {
    this.stats.lines += lines;
    this.stats.bytes += chars;
    this.gate.spend(lines, chars);
  }

  /** Called once the server floods the platform with output (see account). */
  onFlood(cb: (notice: string) => void): void {
    this.floodListeners.add(cb);
  }

  /** What the platform read from this server and what handling it cost (metrics). */
  outputStats(): OutputStats {
    return {
      lines: this.stats.lines,
      bytes: this.stats.bytes,
      throttledMs: this.gate.budget.throttledMs,
      cpuSeconds: Number(this.stats.ns) / 1e9,
      inputHeldBytes: this.inputHeld,
    };
  }

  /** stderr lines, in linear time: of a line only its start is kept, as a log line keeps no more. */
  private onStderr(chunk: string): number {
    const started = process.hrtime.bigint();
    let lines = 0;
    let from = 0;
    for (let nl = chunk.indexOf("\n"); nl >= 0; nl = chunk.indexOf("\n", from)) {
      lines++;
      const line = this.errHead + chunk.slice(from, Math.min(nl, from + ERR_KEEP - this.errHead.length));
      this.errHead = "";
      from = nl + 1;
      this.log(line);
    }
    if (from < chunk.length && this.errHead.length < ERR_KEEP) this.errHead += chunk.slice(from, from + ERR_KEEP - this.errHead.length);
    this.stats.ns += process.hrtime.bigint() - started;
    return lines;
  }

  /** A message that is not passed on: the request it answers (its id at one end of the line) gets `message` as its error. */
  private refuse(head: string, end: string, message: string, note?: string) {
    // Servers write the id last (the SDK does) or first: the end of the line is searched first.
    const ids = (text: string) =>
      // eslint-disable-next-line no-control-regex -- JSON strings cannot hold raw control characters
      [...text.matchAll(/"id"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4}){1,64}"|-?(?:0|[1-9]\d{0,14}))\s*[,}]/g)].map(
        (m) => m[1]!,
      );
    const found = ids(end.slice(-OVERSIZED_ENDS)).at(-1) ?? ids(head.slice(0, OVERSIZED_ENDS))[0];
    if (note) this.log(note);
    let id: unknown;
    try {
      id = found === undefined ? undefined : JSON.parse(found);
    } catch {
      id = undefined;
    }
    if (typeof id !== "string" && typeof id !== "number") return;
    this.onLine(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32000, message } }));
  }

  private onLine(line: string) {
    if (!line.trim()) return;
    if (line.length > 1024 && nestsDeeper(line, MAX_DEPTH))
      return this.refuse(line, line, ANSWER_TOO_DEEP, `[switchboard] dropped an output line nested deeper than ${MAX_DEPTH} levels`);
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = undefined;
    }
    // Only JSON objects are protocol; `0`, `null` or `[...]` printed by a server are log lines.
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
      this.log(line);
      return;
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

  private log(line: string) {
    // Only the start is kept: masking and escaping a 16 MB line would hold the event loop for seconds.
    const kept = escapeControl(maskSecrets(line.slice(0, ERR_KEEP).replace(/\r$/, ""), this.spec.secrets)).slice(0, LOG_LINE_CHARS);
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

  /**
   * Writes one message to the server's stdin. A server that does not read its input makes the
   * platform hold what is written to it: beyond `flow.stdinBytes` held (one message of any size
   * always goes when nothing is waiting), the message is refused with InputFull.
   */
  send(msg: JSONRPCMessage): void {
    if (this.done) throw new Error("the server has exited");
    if (this.upstream) return this.upstream.send(msg);
    const stdin = this.l.proc.stdin!;
    const text = JSON.stringify(msg);
    if (stdin.writableLength > 0 && stdin.writableLength + text.length + 1 > this.flow.stdinBytes)
      throw new InputFull(this.flow.stdinBytes);
    // A large message is written as it is and its newline after it: joining them would copy it once more.
    if (text.length > 64 * 1024) {
      stdin.write(text);
      stdin.write("\n");
    } else stdin.write(text + "\n");
  }

  /** Bytes written to the server's stdin that it has not read yet (held by the platform). */
  get inputHeld(): number {
    return this.l.proc.stdin?.writableLength ?? 0;
  }

  get running(): boolean {
    return !this.done;
  }

  rssBytes(): number {
    return this.l.rssBytes();
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period. */
  async stop(graceMs = 3000): Promise<ExitInfo> {
    if (!this.done) {
      this.l.proc.stdin!.end();
      this.l.signal("SIGTERM");
      const t = setTimeout(() => this.l.kill(), graceMs);
      await this.exited;
      clearTimeout(t);
    }
    return this.exited;
  }
}
