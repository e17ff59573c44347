import type { ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import type { Mux } from "../sessions/mux.js";
import type { MuxSession, Outlet } from "../sessions/mux-session.js";
import { isObject, NO_CAPABILITIES, serialize, type Id, type Msg } from "../protocol.js";
import { keepAlive, sseEvent, SSE_HEADERS, writeBounded } from "../wire/sse.js";
import { META } from "./envelope.js";

// subscriptions/listen (2026-07-28): a stream of the change notifications its client asked for.

/** A subscriptions/listen stream: the change notifications its client asked for, tagged with the listen request's id. */
export class Listener implements MuxSession {
  readonly inflight = new Map<string, string>();
  readonly subscriptions = new Set<string>();
  readonly capabilities = { ...NO_CAPABILITIES };
  readonly standalone = undefined;
  readonly hasOpenStream = true;
  readonly parked = true;
  lastActive = Date.now();
  private closed = false;
  private seq = 0;
  private readonly keepalive: NodeJS.Timeout;

  constructor(
    private readonly lane: { dropListener(l: Listener): void },
    readonly deploymentId: string,
    private readonly mux: Mux<MuxSession>,
    private readonly res: ServerResponse,
    private readonly listenId: Id,
    private readonly wants: { tools: boolean; prompts: boolean; resources: boolean },
    private readonly serverInfo: unknown,
    /** who opened it: a revoked key, grant or sign-in ends it (Sessions watches) */
    readonly who: Caller,
  ) {
    res.writeHead(200, SSE_HEADERS);
    this.keepalive = keepAlive(res, mux.outbound);
    res.once("close", () => this.end(false));
  }

  private write(msg: Msg) {
    if (this.closed || this.res.destroyed) return;
    const out = serialize(msg);
    if (out) writeBounded(this.res, sseEvent(out.text), this.mux.outbound);
  }

  private tagged(method: string, params: Record<string, unknown> = {}): Msg {
    const meta = isObject(params._meta) ? params._meta : {};
    return { jsonrpc: "2.0", method, params: { ...params, _meta: { ...meta, [META.subscriptionId]: this.listenId } } };
  }

  acknowledge(honored: Record<string, unknown>): void {
    this.write(this.tagged("notifications/subscriptions/acknowledged", { notifications: honored }));
  }

  /** The server's resources/subscribe for each URI (the Mux keeps one per URI across all clients). */
  subscribe(uris: string[]): void {
    for (const uri of uris)
      this.mux.forward(this, { jsonrpc: "2.0", id: `listen-sub-${++this.seq}`, method: "resources/subscribe", params: { uri } }, DISCARD);
  }

  /** A change notification from the server (or the gateway): sent when the client asked for its kind. */
  notify(m: Msg): boolean {
    const method = m.method ?? "";
    const list = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method)?.[1] as
      "tools" | "prompts" | "resources" | undefined;
    if (list && this.wants[list]) this.write(this.tagged(method, isObject(m.params) ? m.params : {}));
    else if (method === "notifications/resources/updated" && this.subscriptions.has(String(m.params?.uri)))
      this.write(this.tagged(method, m.params ?? {}));
    return true;
  }

  /** The Mux closes its peers when the server stops: the stream ends with its result, so the client may listen again. */
  close(): void {
    this.end(true);
  }

  get userId(): string {
    return this.who.userId;
  }
  get keyHash(): string {
    return this.who.keyHash;
  }
  get token(): string | undefined {
    return this.who.token;
  }
  get signIn(): string | undefined {
    return this.who.signIn;
  }
  get expiresAt(): number | undefined {
    return this.who.expiresAt;
  }
  get via(): string | undefined {
    return this.who.via;
  }

  unwatch?: () => void;

  end(graceful: boolean): void {
    if (this.closed) return;
    this.unwatch?.();
    if (graceful)
      this.write({
        jsonrpc: "2.0",
        id: this.listenId,
        result: { resultType: "complete", _meta: { [META.subscriptionId]: this.listenId, [META.serverInfo]: this.serverInfo } },
      });
    this.closed = true;
    clearInterval(this.keepalive);
    // The server's subscriptions go when no other client holds them (Mux.forward decides).
    this.mux.detach(this);
    if (!this.mux.dead)
      for (const uri of [...this.subscriptions])
        this.mux.forward(
          this,
          { jsonrpc: "2.0", id: `listen-unsub-${++this.seq}`, method: "resources/unsubscribe", params: { uri } },
          DISCARD,
        );
    this.lane.dropListener(this);
    if (!this.res.writableEnded) this.res.end();
  }
}

/** An outlet whose answers nobody reads (the listen streams' own subscribe requests). */
const DISCARD: Outlet = { push: () => {}, abandon: () => {} };
