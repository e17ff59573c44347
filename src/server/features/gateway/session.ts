import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { ClientCapabilities, Mux } from "./mux.js";

// A gateway session: one MCP client connected to one deployment. Its SSE streams outlive their
// HTTP responses for a while, so a client that lost a connection can resume with Last-Event-ID.

export type Id = string | number;

/** The parts of a JSON-RPC message the gateway routes by; everything else passes through untouched. */
export interface Msg {
  jsonrpc: "2.0";
  id?: Id | null;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: unknown;
  error?: unknown;
}

/** Revisions whose clients accept a priming event (an id with empty data) and resume streams. */
const PRIMING_FROM = "2025-11-25";
/** What a stream keeps for resumption: its last events up to this many bytes... */
const KEPT_BYTES = 1024 * 1024;
/** ...for at most this many streams a session, and a finished stream only this long. */
const KEPT_STREAMS = 32;
const KEEP_DONE_MS = 60_000;
const KEEPALIVE_MS = 15_000;

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
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

  /** called when the client's connection for this stream closes */
  onDetach?: () => void;

  private frame(n: number, data: string) {
    return this.resumable ? `id: ${this.id}_${n}\nevent: message\ndata: ${data}\n\n` : `event: message\ndata: ${data}\n\n`;
  }

  /** Raw event (the legacy transport's `endpoint` event). */
  writeRaw(text: string): void {
    this.res?.write(text);
  }

  send(msg: unknown): void {
    if (this.done) return;
    const n = ++this.seq;
    const data = JSON.stringify(msg);
    if (this.resumable) {
      this.kept.push({ n, data });
      this.keptBytes += data.length;
      while (this.keptBytes > KEPT_BYTES && this.kept.length > 1) this.keptBytes -= this.kept.shift()!.data.length;
    }
    this.res?.write(this.frame(n, data));
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

/** Where the messages of one client request go: its own POST response or the legacy stream. */
export interface Outlet {
  push(msg: Msg, final: boolean): void;
  /** the request was cancelled: end its response without an answer */
  abandon(): void;
}

/**
 * A Streamable HTTP POST's answer: a single response goes back as application/json; an SSE stream
 * is opened only when the server sends something else first (progress, logs, a sampling request).
 */
export class HttpReply implements Outlet {
  private stream?: EventStream;
  private finished = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly session: Session,
    private readonly onDone: (msg: Msg) => void,
  ) {}

  push(msg: Msg, final: boolean): void {
    if (this.finished) return;
    if (!this.stream) {
      if (final) {
        this.finished = true;
        this.onDone(msg);
        if (this.res.destroyed) return;
        const body = JSON.stringify(msg);
        this.res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        this.res.end(body);
        return;
      }
      this.stream = this.session.openStream(this.res);
    }
    this.stream.send(msg);
    if (final) {
      this.finished = true;
      this.onDone(msg);
      this.stream.end();
    }
  }

  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.stream) this.stream.end();
    else if (!this.res.destroyed) {
      this.res.writeHead(202);
      this.res.end();
    }
  }
}

/** The legacy HTTP+SSE transport: every message of the session goes down its one stream. */
export class LegacyReply implements Outlet {
  constructor(
    private readonly session: Session,
    private readonly onDone: (msg: Msg) => void,
  ) {}

  push(msg: Msg, final: boolean): void {
    this.session.standalone?.send(msg);
    if (final) this.onDone(msg);
  }

  abandon(): void {}
}

export class Session {
  readonly id = randomBytes(24).toString("base64url");
  lastActive = Date.now();
  protocolVersion = "2025-03-26";
  capabilities: ClientCapabilities = { sampling: false, elicitation: false, roots: false };
  /** the GET stream (Streamable HTTP) or the /sse stream (legacy): notifications and server requests */
  standalone?: EventStream;
  /** client request id -> the id the gateway gave it on the server side */
  readonly inflight = new Map<string, string>();
  readonly subscriptions = new Set<string>();
  private readonly streams = new Map<string, EventStream>();
  private streamSeq = 0;
  closed = false;

  constructor(
    readonly userId: string,
    /** the API key it was opened with (SHA-256): a revoked key ends its sessions */
    readonly keyHash: string,
    readonly deploymentId: string,
    readonly mux: Mux,
    readonly legacy: boolean,
  ) {}

  get resumable(): boolean {
    return !this.legacy && this.protocolVersion >= PRIMING_FROM;
  }

  private headers(): Record<string, string> {
    return this.legacy ? {} : { "mcp-session-id": this.id };
  }

  private newStream(): EventStream {
    const s = new EventStream(String(++this.streamSeq), this.resumable);
    const expired = Date.now() - KEEP_DONE_MS;
    for (const [id, old] of this.streams) {
      if (old.done && old !== this.standalone && (old.doneAt < expired || this.streams.size >= KEPT_STREAMS)) this.streams.delete(id);
    }
    this.streams.set(s.id, s);
    return s;
  }

  /** A POST answer that became a stream. */
  openStream(res: ServerResponse): EventStream {
    const s = this.newStream();
    s.attach(res, this.headers(), { priming: true });
    return s;
  }

  /** The GET stream (or the legacy /sse stream); a second one while the first is open is refused by the caller (409). */
  openStandalone(res: ServerResponse): EventStream | undefined {
    this.standalone ??= this.newStream();
    return this.standalone.attach(res, this.headers(), { priming: true }) ? this.standalone : undefined;
  }

  /** The stream a Last-Event-ID (`{stream}_{n}`) names, and the event after which to resume. */
  findStream(lastEventId: string): { stream: EventStream; after: number } | undefined {
    const m = /^(\d+)_(\d+)$/.exec(lastEventId);
    const stream = m ? this.streams.get(m[1]!) : undefined;
    return stream ? { stream, after: Number(m![2]) } : undefined;
  }

  resume(found: { stream: EventStream; after: number }, res: ServerResponse): void {
    found.stream.attach(res, this.headers(), { after: found.after });
  }

  /** Finished streams are kept for resumption only a while. */
  prune(): void {
    const expired = Date.now() - KEEP_DONE_MS;
    for (const [id, s] of this.streams) if (s.done && s !== this.standalone && s.doneAt < expired) this.streams.delete(id);
  }

  get hasOpenStream(): boolean {
    if (this.standalone?.attached) return true;
    for (const s of this.streams.values()) if (s.attached && !s.done) return true;
    return false;
  }

  /** A notification or server request with no request of this session to ride on. */
  notify(msg: Msg): boolean {
    if (!this.standalone) return false;
    this.standalone.send(msg);
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.mux.detach(this);
    this.standalone?.end();
    for (const s of this.streams.values()) s.end();
  }
}
