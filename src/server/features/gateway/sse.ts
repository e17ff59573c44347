import type { ServerResponse } from "node:http";
import { MEDIA, serialize, type Msg } from "./protocol.js";

// Server-sent event streams. A session's streams outlive their HTTP responses for a while, so a
// client that lost a connection can resume with Last-Event-ID and get what it missed.

/** What a stream keeps for resumption: its last events up to this many bytes. */
const KEPT_BYTES = 1024 * 1024;
const KEEPALIVE_MS = 15_000;

export const SSE_HEADERS = {
  "content-type": MEDIA.sse,
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** One server-sent event stream of a session: a POST's answer, the GET stream or a legacy /sse stream. */
export class EventStream {
  private seq = 0;
  private kept: { n: number; data: string }[] = [];
  private keptBytes = 0;
  private res?: ServerResponse;
  private keepalive?: NodeJS.Timeout;
  done = false;
  doneAt = 0;

  constructor(
    readonly id: string,
    private readonly resumable: boolean,
  ) {}

  get attached(): boolean {
    return this.res !== undefined;
  }

  /** Sends the stream's events after `after` (resumption), then everything new, on this response. */
  attach(res: ServerResponse, headers: Record<string, string>, opts: { after?: number; priming?: boolean } = {}): boolean {
    // A response whose client already left never emits 'close' again: it must not count as attached.
    if (res.destroyed || res.socket?.destroyed) return false;
    this.close(); // a resumed stream replaces the response it had
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    this.res = res;
    if (opts.priming && this.resumable) res.write(`id: ${this.id}_${this.seq}\nretry: 1000\ndata: \n\n`);
    else res.flushHeaders();
    if (opts.after !== undefined) for (const e of this.kept) if (e.n > opts.after) res.write(this.frame(e.n, e.data));
    if (this.done) {
      this.close();
      return true;
    }
    res.on("close", () => {
      if (this.res === res) {
        this.detach();
        this.onDetach?.();
      }
    });
    this.keepalive = setInterval(() => res.write(": keepalive\n\n"), KEEPALIVE_MS).unref();
    return true;
  }

  /** A finished stream with nothing kept after event `after`: resuming it would deliver nothing. */
  exhausted(after: number): boolean {
    return this.done && !this.kept.some((e) => e.n > after);
  }

  /** called when the client's connection for this stream closes */
  onDetach?: () => void;

  private frame(n: number, data: string) {
    return this.resumable ? `id: ${this.id}_${n}\nevent: message\ndata: ${data}\n\n` : `event: message\ndata: ${data}\n\n`;
  }

  /** Raw event (the legacy transport's `endpoint` event). */
  writeRaw(text: string): void {
    this.res?.write(text);
  }

  /** Sends one message; returns what went out (an answer too deep to serialize goes as an error) and its size in bytes, or nothing. */
  send(msg: Msg): { msg: Msg; bytes: number } | undefined {
    if (this.done) return undefined;
    const out = serialize(msg);
    if (out === undefined) return undefined;
    const data = out.text;
    const n = ++this.seq;
    if (this.resumable) {
      this.kept.push({ n, data });
      this.keptBytes += data.length;
      while (this.keptBytes > KEPT_BYTES && this.kept.length > 1) this.keptBytes -= this.kept.shift()!.data.length;
    }
    this.res?.write(this.frame(n, data));
    return { msg: out.sent, bytes: Buffer.byteLength(data) };
  }

  private detach() {
    clearInterval(this.keepalive);
    this.keepalive = undefined;
    this.res = undefined;
  }

  private close() {
    const res = this.res;
    this.detach();
    res?.end();
  }

  /** No more events: the open response ends; a later resume still replays what was kept. */
  end(): void {
    if (!this.done) this.doneAt = Date.now();
    this.done = true;
    this.close();
  }
}
