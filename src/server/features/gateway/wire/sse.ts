import type { ServerResponse } from "node:http";
import { MEDIA, serialize, type Msg } from "../protocol.js";

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

/**
 * What one deployment's clients' streams may hold: bytes written to a response that its client
 * has not taken yet stay in the platform's memory. A stream holding more than `perStream`, or a
 * write that would take the deployment's streams together past `perDeployment`, closes that
 * stream instead (its client resumes with Last-Event-ID, or starts over): a client that stopped
 * reading, or a server sending faster than its clients read, costs at most this much.
 */
export class OutboundBudget {
  /** bytes written to this deployment's streams and not yet sent on */
  held = 0;
  /** streams closed because their client did not keep up */
  stalled = 0;
  constructor(
    readonly perStream: number,
    readonly perDeployment: number,
    /** the gateway's streams together, which this deployment's add to (the metrics read them: Gateway.counts()) */
    readonly totals: StreamTotals = { held: 0, stalled: 0 },
  ) {}
}

/** A gateway's streams together: bytes held for clients now, and streams closed for not keeping up. */
export interface StreamTotals {
  held: number;
  stalled: number;
}

/** One SSE event carrying a JSON-RPC message (`data`, serialized), with its id when the stream is resumable. */
export const sseEvent = (data: string, id?: string) =>
  id === undefined ? `event: message\ndata: ${data}\n\n` : `id: ${id}\nevent: message\ndata: ${data}\n\n`;

/** A comment every 15 s on an open stream, so proxies and clients do not take a quiet one for a dead one; clear it when the stream ends. */
export const keepAlive = (res: ServerResponse, budget: OutboundBudget): NodeJS.Timeout =>
  setInterval(() => writeBounded(res, ": keepalive\n\n", budget), KEEPALIVE_MS).unref();

/** For tests and tools that build a Mux by hand: the defaults of GATEWAY_STREAM_BUFFER_BYTES and GATEWAY_DEPLOYMENT_BUFFER_BYTES. */
export const DEFAULT_STREAM_BYTES = 4 * 1024 * 1024;
export const DEFAULT_DEPLOYMENT_STREAM_BYTES = 32 * 1024 * 1024;

const accounts = new WeakMap<ServerResponse, { bytes: number; closed: boolean }>();

/**
 * Writes an event on a client's stream within `budget` (see OutboundBudget); false when the
 * stream is gone or was closed for holding too much. What a write holds is given back as it
 * leaves, or all at once when the response closes.
 */
export function writeBounded(res: ServerResponse, text: string, budget: OutboundBudget): boolean {
  if (res.destroyed || res.writableEnded) return false;
  const n = text.length;
  const waiting = res.writableLength;
  if ((waiting > 0 && waiting + n > budget.perStream) || (budget.held > 0 && budget.held + n > budget.perDeployment)) {
    budget.stalled++;
    budget.totals.stalled++;
    res.destroy();
    return false;
  }
  let account = accounts.get(res);
  if (!account) {
    const a = { bytes: 0, closed: false };
    accounts.set(res, (account = a));
    res.once("close", () => {
      a.closed = true;
      budget.held -= a.bytes;
      budget.totals.held -= a.bytes;
      a.bytes = 0;
    });
  }
  const a = account;
  a.bytes += n;
  budget.held += n;
  budget.totals.held += n;
  res.write(text, () => {
    if (a.closed) return;
    a.bytes -= n;
    budget.held -= n;
    budget.totals.held -= n;
  });
  return true;
}

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
    private readonly budget: OutboundBudget,
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
    if (opts.priming && this.resumable) writeBounded(res, `id: ${this.id}_${this.seq}\nretry: 1000\ndata: \n\n`, this.budget);
    else res.flushHeaders();
    if (opts.after !== undefined)
      for (const e of this.kept) if (e.n > opts.after && !writeBounded(res, this.frame(e.n, e.data), this.budget)) break;
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
    this.keepalive = keepAlive(res, this.budget);
    return true;
  }

  /** A finished stream with nothing kept after event `after`: resuming it would deliver nothing. */
  exhausted(after: number): boolean {
    return this.done && !this.kept.some((e) => e.n > after);
  }

  /** called when the client's connection for this stream closes */
  onDetach?: () => void;

  private frame(n: number, data: string) {
    return sseEvent(data, this.resumable ? `${this.id}_${n}` : undefined);
  }

  /** Raw event (the legacy transport's `endpoint` event). */
  writeRaw(text: string): void {
    if (this.res) writeBounded(this.res, text, this.budget);
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
    if (this.res) writeBounded(this.res, this.frame(n, data), this.budget);
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
