// A server's stdout as lines: split in linear time, a bounded number per turn, and a line too long
// (or beyond what all servers' unfinished lines may hold together) dropped as it streams, keeping
// its two ends so the request it answers can be refused (child.ts).

/** The longest message a server may send (a 10 MB tool result passes; beyond, the request gets OVERSIZED_ANSWER). */
export const MAX_LINE = 16 * 1024 * 1024;
/** what is kept of each end of a dropped line: a request's id is at one of them */
export const OVERSIZED_ENDS = 256;
export const OVERSIZED_ANSWER = `The server's answer was larger than ${MAX_LINE / 1024 / 1024} MB, more than the platform passes on`;
/**
 * Unfinished lines of every server of this process together: a server that writes almost
 * MAX_LINE and then sleeps pins that memory in the platform, outside its own memory limit.
 * Beyond this, the line that tips it is dropped as too long.
 */
const PENDING_BUDGET = 8 * MAX_LINE;
export const OVER_BUDGET_NOTE = `[switchboard] dropped an unfinished output line: the platform holds at most ${PENDING_BUDGET / 1024 / 1024} MB of them for all servers`;
let pendingAll = 0;

/** stdout lines handled in one turn of the event loop (child.ts, feed) */
const LINES_PER_TURN = 256;

/** Where a StdoutLines sends what it reads. */
export interface LineSink {
  /** a whole line (without its newline) */
  line(line: string): void;
  /** a line that is not passed on: the request it answers (its id at one end) gets `message` as its error */
  refuse(head: string, end: string, message: string): void;
  log(note: string): void;
}

export class StdoutLines {
  private pending: string[] = [];
  private pendingChars = 0;
  private oversized?: { head: string; tail: string };

  constructor(private readonly sink: LineSink) {}

  /**
   * Splits stdout into lines in linear time (a 10 MB answer arrives in many chunks, and only each
   * new chunk is searched). A line longer than MAX_LINE is dropped as it streams, keeping its two
   * ends: the request it answers (its id is at one end) gets an error instead of no answer at all.
   */
  take(chunk: string): { lines: number; used: number } {
    let lines = 0;
    let from = 0;
    for (let nl = chunk.indexOf("\n"); nl >= 0; nl = chunk.indexOf("\n", from)) {
      if (lines === LINES_PER_TURN) return { lines, used: from };
      lines++;
      const part = chunk.slice(from, nl);
      from = nl + 1;
      if (this.oversized) {
        this.dropOversized(part);
        continue;
      }
      const line = this.pending.length ? this.pending.join("") + part : part;
      this.release();
      this.sink.line(line);
    }
    this.keepRest(chunk.slice(from));
    return { lines, used: chunk.length };
  }

  private keepRest(rest: string) {
    if (!rest) return;
    if (this.oversized) {
      this.oversized.tail = (this.oversized.tail + rest).slice(-OVERSIZED_ENDS);
      return;
    }
    this.pending.push(rest);
    this.pendingChars += rest.length;
    pendingAll += rest.length;
    if (this.pendingChars > MAX_LINE || pendingAll > PENDING_BUDGET) {
      // Said at once: a line that never ends would otherwise never be reported.
      this.sink.log(
        this.pendingChars > MAX_LINE ? `[switchboard] dropped an output line longer than ${MAX_LINE / 1024 / 1024} MB` : OVER_BUDGET_NOTE,
      );
      const whole = this.pending.join("");
      this.oversized = { head: whole.slice(0, OVERSIZED_ENDS), tail: whole.slice(-OVERSIZED_ENDS) };
      this.release();
    }
  }

  /** The unfinished line is done with: its memory leaves the shared budget. */
  release() {
    pendingAll -= this.pendingChars;
    this.pending = [];
    this.pendingChars = 0;
  }

  private dropOversized(last: string) {
    const { head, tail } = this.oversized!;
    this.oversized = undefined;
    this.sink.refuse(head, tail + last, OVERSIZED_ANSWER);
  }
}
