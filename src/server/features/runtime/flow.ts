import type { FlowLimits } from "./runner.js";

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
