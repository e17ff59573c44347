import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { Mux } from "./mux.js";
import type { MuxSession } from "./mux-session.js";
import { DEFAULT_VERSION, HEADER, NO_CAPABILITIES, PRIMING_FROM, type ClientCapabilities, type Msg } from "../protocol.js";
import { EventStream } from "../wire/sse.js";

// A gateway session: one MCP client connected to one deployment, with its SSE streams.

/** A session keeps at most this many streams for resumption, and a finished stream only this long. */
const KEPT_STREAMS = 32;
const KEEP_DONE_MS = 60_000;

export class Session implements MuxSession {
  readonly id = randomBytes(24).toString("base64url");
  lastActive = Date.now();
  protocolVersion: string = DEFAULT_VERSION;
  capabilities: ClientCapabilities = { ...NO_CAPABILITIES };
  /** the GET stream (Streamable HTTP) or the /sse stream (legacy): notifications and server requests */
  standalone?: EventStream;
  /** client request id -> the id the gateway gave it on the server side */
  readonly inflight = new Map<string, string>();
  readonly subscriptions = new Set<string>();
  private readonly streams = new Map<string, EventStream>();
  private streamSeq = 0;
  closed = false;
  /** opened by the playground: the sign-in session whose cookie it came with (it ends when that signs out) */
  signIn?: string;
  /** the client's name and version, from its initialize */
  client?: { name: string; version: string };
  /** opened with an OAuth access token: the one it was last used with (clients refresh tokens within a session); it ends when that is revoked */
  token?: string;
  /** its API key's expiry (epoch ms): it ends then */
  expiresAt?: number;
  /** opened by a member on an organisation's deployment: that account's id (it ends when they leave or are removed) */
  via?: string;

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
    return this.legacy ? {} : { [HEADER.sessionId]: this.id };
  }

  private newStream(): EventStream {
    const s = new EventStream(String(++this.streamSeq), this.resumable, this.mux.outbound);
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
