import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { InputFull, type McpChannel } from "../../runtime/runner.js";
import { RPC, type Id, type Msg } from "../protocol.js";
import { EXPOSE_ALL, type Exposure } from "../exposure.js";
import { ServerInit } from "../server-init.js";
import { DEFAULT_DEPLOYMENT_STREAM_BYTES, DEFAULT_STREAM_BYTES, OutboundBudget } from "../wire/sse.js";
import { idKey, MuxRequests, type Pending } from "./mux-requests.js";
import type { MuxSession, Outlet } from "./mux-session.js";

// One hosted server's MCP channel, many client sessions. Every client request gets an id of the
// gateway's own on the server side (string ids; the platform's own client uses numbers), so ids
// that collide between sessions never cross. Answers, progress (by a rewritten progress token) and
// server-to-client requests find their way back to the one session they belong to (the
// bookkeeping of both ways is mux-requests.ts; what the mux needs of its sessions mux-session.ts).

const MAX_INFLIGHT_PER_SESSION = 100;
const MAX_SUBSCRIPTIONS_PER_SESSION = 100;
const MAX_URI_LENGTH = 2048;

export class Mux<S extends MuxSession = MuxSession> extends MuxRequests<S> {
  private seq = 0;
  /** the gateway's own requests to the server (initialize) */
  private readonly init = new ServerInit((m) => this.trySend(m) === true);
  private readonly unsubscribe: () => void;
  dead = false;

  constructor(
    private readonly channel: McpChannel,
    private readonly requestTimeoutMs: number,
    onMessageLost: (why: string) => void = () => {},
    /** what this deployment's clients' streams may hold (wire/sse.ts) */
    readonly outbound = new OutboundBudget(DEFAULT_STREAM_BYTES, DEFAULT_DEPLOYMENT_STREAM_BYTES),
  ) {
    super(onMessageLost);
    this.unsubscribe = channel.onMessage((m) => this.fromServer(m as Msg));
    void channel.exited.then((reason) => this.onExit(reason));
  }

  private send(msg: Msg) {
    this.channel.send(msg as JSONRPCMessage);
  }

  attach(session: S): void {
    this.sessions.add(session);
  }

  /** A session ended (DELETE, expiry): its calls still running on the server are cancelled. */
  detach(session: S): void {
    this.sessions.delete(session);
    for (const gwId of session.inflight.values()) {
      const p = this.pending.get(gwId);
      if (!p) continue;
      this.finish(p);
      p.outlet.push(
        { jsonrpc: "2.0", id: p.clientId, error: { code: RPC.sessionNotFound, message: "The session ended before the server answered" } },
        true,
      );
      this.trySend({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: gwId, reason: "The client session ended" } });
    }
    for (const [k, s] of this.serverRequests) if (s === session) this.serverRequests.delete(k);
  }

  /** True once sent; else why not (the server is not running, or not reading its input). */
  protected trySend(msg: Msg): true | string {
    try {
      this.send(msg);
      return true;
    } catch (e) {
      return e instanceof InputFull ? e.message : "The MCP server is not running; it may be restarting. Start a new session in a moment.";
    }
  }

  /** The server's initialize result for the client's protocol revision (see ServerInit). */
  initialize(params: Msg["params"]): Promise<Msg> {
    return this.init.initialize(params);
  }

  /**
   * A client's request: forwarded under a gateway id; the answer goes to `outlet`. False when it
   * was not forwarded. `exposure`: what the deployment's clients may see and call (tools its owner
   * hid, definitions that changed since the owner approved them): a refused call never reaches the
   * server, and a listing's answer is shaped before the client sees it.
   */
  forward(session: S, msg: Msg, outlet: Outlet, exposure: Exposure = EXPOSE_ALL): boolean {
    const refuse = (message: string, code: number = RPC.invalidRequest) => {
      outlet.push({ jsonrpc: "2.0", id: msg.id!, error: { code, message } }, true);
      return false;
    };
    const key = idKey(msg.id);
    if (session.inflight.has(key)) return refuse("A request with this id is already in flight in this session");
    if (session.inflight.size >= MAX_INFLIGHT_PER_SESSION)
      return refuse(`Too many requests in flight in this session (at most ${MAX_INFLIGHT_PER_SESSION})`, RPC.serverError);
    let params = msg.params;
    const refused = exposure.refusal(msg.method, params);
    if (refused) return refuse(refused.message, refused.code);
    const uri = params?.uri;
    if (msg.method === "resources/subscribe" && typeof uri === "string") {
      if (uri.length > MAX_URI_LENGTH) return refuse("Resource URI too long");
      if (!session.subscriptions.has(uri) && session.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SESSION)
        return refuse(`Too many subscriptions in this session (at most ${MAX_SUBSCRIPTIONS_PER_SESSION})`);
      session.subscriptions.add(uri);
    }
    if (msg.method === "resources/unsubscribe" && typeof uri === "string") {
      session.subscriptions.delete(uri);
      // Another session still watching the resource keeps the server-side subscription.
      for (const s of this.sessions) {
        if (s.subscriptions.has(uri)) {
          outlet.push({ jsonrpc: "2.0", id: msg.id!, result: {} }, true);
          return false;
        }
      }
    }
    const gwId = `sb${++this.seq}`;
    const timer = setTimeout(() => this.timeout(gwId), this.requestTimeoutMs).unref();
    const p: Pending<S> = { gwId, session, clientId: msg.id!, outlet, timer, shape: exposure.shaper(msg.method, params) };
    const token = params?._meta?.progressToken;
    if (token !== undefined) {
      p.progressToken = `sbp${this.seq}`;
      params = { ...params, _meta: { ...params!._meta, progressToken: p.progressToken } };
      this.progress.set(p.progressToken, { pending: p, token });
    }
    this.pending.set(gwId, p);
    session.inflight.set(key, gwId);
    const out: Msg = { jsonrpc: "2.0", id: gwId, method: msg.method };
    if (params !== undefined) out.params = params;
    const sent = this.trySend(out);
    if (sent !== true) {
      this.finish(p);
      return refuse(sent, RPC.serverError);
    }
    return true;
  }

  /** A request of `session` waits this long from now (a 2026-07-28 call waiting for its client's answers to the server's questions). */
  rearm(session: S, clientId: Id, ms: number): void {
    const gwId = session.inflight.get(idKey(clientId));
    const p = gwId ? this.pending.get(gwId) : undefined;
    if (!p) return;
    clearTimeout(p.timer);
    p.timer = setTimeout(() => this.timeout(p.gwId), ms).unref();
  }

  private timeout(gwId: string) {
    const p = this.pending.get(gwId);
    if (!p) return;
    this.finish(p);
    p.outlet.push(
      {
        jsonrpc: "2.0",
        id: p.clientId,
        error: { code: RPC.serverError, message: `The MCP server did not answer within ${Math.round(this.requestTimeoutMs / 1000)} s` },
      },
      true,
    );
    this.trySend({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: gwId, reason: "Timed out at the gateway" } });
  }

  /** A client's notification: cancellations are translated to the gateway's ids. */
  notifyServer(session: S, msg: Msg): void {
    if (msg.method === "notifications/initialized") return; // the gateway initialized the server itself
    // A request sent without an id (a tools/call, say) is no notification: it would reach the
    // server past every check a request gets (hidden tools among them), so it goes nowhere.
    if (typeof msg.method !== "string" || !msg.method.startsWith("notifications/"))
      return this.onMessageLost("a client notification that is not one");
    if (msg.method === "notifications/cancelled") {
      const gwId = session.inflight.get(idKey(msg.params?.requestId));
      const p = gwId ? this.pending.get(gwId) : undefined;
      if (!p) return;
      this.finish(p);
      p.outlet.abandon();
      this.trySend({ jsonrpc: "2.0", method: msg.method, params: { ...msg.params, requestId: gwId } });
      return;
    }
    this.trySend(msg);
  }

  /** A client's answer to a server request: accepted only from the session it was sent to. */
  answerServer(session: S, msg: Msg): void {
    const key = idKey(msg.id);
    if (this.serverRequests.get(key) !== session) return this.onMessageLost("an answer to a request this session was not asked");
    this.serverRequests.delete(key);
    this.trySend(msg);
  }

  private fromServer(m: Msg) {
    if (m.method !== undefined) {
      if (typeof m.method !== "string") return this.onMessageLost("a server message whose method is not a string");
      if (m.method === "ping") return; // the platform's own client answers the server's pings
      if (m.id !== undefined && m.id !== null) return this.serverRequest(m);
      return this.serverNotification(m);
    }
    if (typeof m.id !== "string") return; // the platform's own client (numeric ids)
    if (this.init.answered(m.id, m)) return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.finish(p);
    const reply: Msg = { jsonrpc: "2.0", id: p.clientId };
    if ("error" in m) reply.error = m.error;
    else reply.result = p.shape ? p.shape(m.result) : m.result;
    p.outlet.push(reply, true);
  }

  private onExit(reason: string) {
    this.dead = true;
    this.unsubscribe();
    for (const p of [...this.pending.values()]) {
      this.finish(p);
      p.outlet.push(
        {
          jsonrpc: "2.0",
          id: p.clientId,
          error: {
            code: RPC.serverError,
            message: `The MCP server stopped while handling this request (${reason}). Start a new session once it is running again.`,
          },
        },
        true,
      );
    }
    this.init.stopped(reason);
    for (const s of [...this.sessions]) s.close();
  }
}
