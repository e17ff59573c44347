import type { Readable } from "node:stream";
import type { FlowLimits } from "../runner.js";

// What a server's output may cost the platform: every line it writes is read, split, parsed and
// routed by the platform's own event loop, outside the server's CPU quota. A token bucket per
// server (lines and bytes a second, a second's worth of burst) says when to stop reading its
// pipes for a while; the kernel's pipe buffer then holds the server's writes back, so excess costs
// the platform nothing. A server held back without a break for `floodStopMs` is flooding.

/** A break this long in being held back resets the flood clock. */
const BREAK_MS = 1000;

export class OutputBudget {
  private lines: number;
  private bytes: number;
  private at: number;
  private heldSince?: number;
  private heldUntil = 0;
  /** milliseconds spent held back, in all */
  throttledMs = 0;

  constructor(
    private readonly limits: FlowLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lines = limits.messagesPerSecond;
    this.bytes = limits.bytesPerSecond;
    this.at = now();
  }

  /** Spends on what was just read; the milliseconds to wait before reading more (0: go on). */
  spend(lines: number, bytes: number): number {
    const t = this.now();
    const seconds = (t - this.at) / 1000;
    this.at = t;
    const { messagesPerSecond: lr, bytesPerSecond: br } = this.limits;
    this.lines = Math.min(lr, this.lines + seconds * lr) - lines;
    this.bytes = Math.min(br, this.bytes + seconds * br) - bytes;
    return Math.ceil(Math.max(0, (-this.lines / lr) * 1000, (-this.bytes / br) * 1000));
  }

  /** Reading stops for `ms` from now; true once it has been held back without a break for floodStopMs already. */
  hold(ms: number): boolean {
    const t = this.now();
    if (this.heldSince === undefined || t - this.heldUntil > BREAK_MS) this.heldSince = t;
    this.heldUntil = t + ms;
    this.throttledMs += ms;
    return t - this.heldSince >= this.limits.floodStopMs;
  }
}

/** The log line and status a server stopped for flooding gets. */
export const floodNotice = (f: FlowLimits) =>
  `[switchboard] stopped: the server wrote more than ${f.messagesPerSecond.toLocaleString("en-US")} lines or ${Math.round(f.bytesPerSecond / 1024 / 1024)} MB a second for ${Math.round(f.floodStopMs / 1000)} s without a break`;

/**
 * When the platform reads a server's stdout and stderr: not while its budget is spent (both
 * pause until it refills), nor while the rest of a stdout read waits for the next turn of the
 * event loop (stdout pauses). Held back without a break for floodStopMs, it calls `onFlood` and
 * stays paused.
 */
export class ReadGate {
  readonly budget: OutputBudget;
  private held = false;
  private carrying = false;
  private closed = false;

  constructor(
    private readonly out: Readable,
    private readonly err: Readable,
    limits: FlowLimits,
    private readonly onFlood: () => void,
  ) {
    this.budget = new OutputBudget(limits);
  }

  /** What was just read is spent from the budget; once it is gone, reading pauses until it refills. */
  spend(lines: number, chars: number): void {
    const wait = this.budget.spend(lines, chars);
    if (wait === 0 || this.held || this.closed) return;
    this.held = true;
    this.out.pause();
    this.err.pause();
    if (this.budget.hold(wait)) {
      this.closed = true;
      return this.onFlood();
    }
    setTimeout(() => {
      this.held = false;
      this.resume();
    }, wait).unref();
  }

  /** `rest` runs in the next turn, stdout paused meanwhile (what is left of a large read). */
  carry(rest: () => void): void {
    this.carrying = true;
    this.out.pause();
    setImmediate(() => {
      this.carrying = false;
      rest();
      this.resume();
    });
  }

  /** The server ended: nothing is resumed any more. */
  close(): void {
    this.closed = true;
  }

  private resume() {
    if (this.held || this.carrying || this.closed) return;
    this.out.resume();
    this.err.resume();
  }
}
