import { CAPABILITY_NEEDED, RPC, type ClientCapabilities, type Id, type Msg } from "../protocol.js";
import type { MuxSession, Outlet } from "./mux-session.js";

// The Mux's bookkeeping of one server's requests in flight, both ways: the clients' requests under
// the gateway's own ids (and rewritten progress tokens), the server's requests waiting for a
// client's answer; and the routing of what the server sends back to the one session it belongs to.
// mux.ts builds on it (the channel, the sessions' requests going out).

export interface Pending<S> {
  gwId: string;
  session: S;
  clientId: Id;
  outlet: Outlet;
  progressToken?: string;
  timer: NodeJS.Timeout;
  /** a listing whose answer the deployment's exposure rules shape (hidden tools, withheld definitions) */
  shape?: (result: unknown) => unknown;
}

export const idKey = (id: unknown) => (typeof id === "number" ? `n${id}` : `s${String(id)}`);

/** server-to-client requests waiting for a client's answer, per server: beyond, the server is answered with an error at once */
export const MAX_SERVER_REQUESTS = 100;

export abstract class MuxRequests<S extends MuxSession> {
  protected readonly pending = new Map<string, Pending<S>>();
  protected readonly progress = new Map<string, { pending: Pending<S>; token: unknown }>();
  /** server-to-client requests in flight -> the session that must answer */
  protected readonly serverRequests = new Map<string, S>();
  readonly sessions = new Set<S>();

  constructor(protected readonly onMessageLost: (why: string) => void) {}

  /** True once sent; else why not (the server is not running, or not reading its input). */
  protected abstract trySend(msg: Msg): true | string;

  protected finish(p: Pending<S>) {
    clearTimeout(p.timer);
    this.pending.delete(p.gwId);
    p.session.inflight.delete(idKey(p.clientId));
    if (p.progressToken) this.progress.delete(p.progressToken);
  }

  /** The request in flight most recently sent (of a session that can take `needs`): the best owner for unlabelled server messages. */
  protected latestPending(needs?: keyof ClientCapabilities): Pending<S> | undefined {
    let last: Pending<S> | undefined;
    for (const p of this.pending.values()) if (!p.session.parked && (!needs || p.session.capabilities[needs])) last = p;
    return last;
  }

  protected serverRequest(m: Msg) {
    const needs = CAPABILITY_NEEDED[m.method!];
    const p = this.latestPending(needs);
    let session = p?.session;
    if (!session) {
      let best: S | undefined;
      for (const s of this.sessions)
        if (s.standalone && (!needs || s.capabilities[needs]) && (!best || s.lastActive > best.lastActive)) best = s;
      session = best;
    }
    if (!session) {
      const why = needs ? `No connected client supports ${needs}` : "No client session is connected to answer this request";
      return void this.trySend({ jsonrpc: "2.0", id: m.id!, error: { code: RPC.methodNotFound, message: why } });
    }
    if (this.serverRequests.size >= MAX_SERVER_REQUESTS && !this.serverRequests.has(idKey(m.id))) {
      this.onMessageLost("a server request beyond the ones waiting for an answer");
      return void this.trySend({
        jsonrpc: "2.0",
        id: m.id!,
        error: { code: RPC.serverError, message: `Too many requests to clients waiting for an answer (at most ${MAX_SERVER_REQUESTS})` },
      });
    }
    this.serverRequests.set(idKey(m.id), session);
    if (p) p.outlet.push(m, false);
    else session.notify(m);
  }

  protected serverNotification(m: Msg) {
    const method = m.method!;
    if (method === "notifications/progress") {
      const e = this.progress.get(String(m.params?.progressToken));
      if (e) e.pending.outlet.push({ ...m, params: { ...m.params, progressToken: e.token } }, false);
      return;
    }
    if (method === "notifications/cancelled") {
      const key = idKey(m.params?.requestId);
      const s = this.serverRequests.get(key);
      if (s) {
        this.serverRequests.delete(key);
        s.notify(m);
      }
      return;
    }
    if (method.endsWith("/list_changed")) {
      for (const s of this.sessions) s.notify(m);
      return;
    }
    if (method === "notifications/resources/updated") {
      for (const s of this.sessions) if (s.subscriptions.has(String(m.params?.uri))) s.notify(m);
      return;
    }
    // Logs and other notifications carry no request id on stdio: they belong to the call in
    // flight (exact with one), and with none in flight to every session's GET stream.
    const p = this.latestPending();
    if (p) p.outlet.push(m, false);
    else for (const s of this.sessions) s.notify(m);
  }
}
