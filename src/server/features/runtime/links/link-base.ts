import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ExitInfo } from "../sandbox/index.js";

const LOG_LINES = 200;

/**
 * What the links that run no process share (a connection's remote-link.ts, a toolset's
 * toolset-link.ts): no pid, messages handed to whoever listens, the last lines of what happened
 * (each cleaned by the link: its secrets masked), and an end with its reason.
 */
export abstract class LinkBase {
  readonly pid = null;
  readonly pidStart = null;
  readonly exited: Promise<ExitInfo>;
  private end!: (e: ExitInfo) => void;
  protected done = false;
  protected lines = 0;
  private readonly listeners = new Set<(m: JSONRPCMessage) => void>();
  private readonly logBuf: string[] = [];

  constructor() {
    this.exited = new Promise((r) => (this.end = r));
  }

  /** A line as it may be shown: the link's secrets masked, control characters escaped, short. */
  protected abstract clean(text: string): string;

  protected log(line: string): void {
    this.logBuf.push(this.clean(line));
    if (this.logBuf.length > LOG_LINES) this.logBuf.splice(0, this.logBuf.length - LOG_LINES);
  }

  /** A message from the server, to everyone listening; a listener that throws is logged, not fatal. */
  protected dispatch(m: JSONRPCMessage): void {
    this.lines++;
    for (const l of this.listeners) {
      try {
        l(m);
      } catch (e) {
        this.log(`[switchboard] could not route a message: ${(e as Error).message}`);
      }
    }
  }

  protected ended(info: ExitInfo): void {
    this.end(info);
  }

  onMessage(cb: (m: JSONRPCMessage) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  onFlood(): void {
    // Nothing is read unasked: answers are bounded where they arrive.
  }

  logs(): string[] {
    return [...this.logBuf];
  }

  get running(): boolean {
    return !this.done;
  }

  rssBytes(): number {
    return 0;
  }
}
