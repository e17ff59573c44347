import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "./access.js";
import type { Held } from "./sessions.js";
import type { Exposure } from "./exposure.js";
import { rpcError } from "./http.js";
import type { Mux, MuxSession, Outlet } from "./mux.js";
import { requestName } from "./observe.js";
import { LATEST_VERSION, MEDIA, NO_CAPABILITIES, RPC, serialize, type ClientCapabilities, type Id, type Msg } from "./protocol.js";
import type { GatewayTarget } from "./repo.js";
import { SSE_HEADERS, writeBounded, type OutboundBudget } from "./sse.js";
import { ALL_VERSIONS, CACHEABLE, checkModern, errorAnswer, legacyParams, LOG_LEVELS, MAY_ASK, META, type Envelope } from "./stateless.js";

// The 2026-07-28 lane (docs/gateway.md#protocol-revisions): each request stands alone. The hosted
// server still speaks an earlier revision over its one stdio channel, which it shares with the
// session clients: the gateway initialized it once, and translates. A request goes through the
// server's Mux as a one-request peer of its own; the answer gets the revision's result fields;
// progress and (when asked for) logs stream before it. A request the server asks something of
// (sampling, elicitation, roots) ends 'input_required' with the question and a sealed
// requestState; the server's call keeps running, and the client's retry with the answers carries
// on with it. subscriptions/listen is a stream of the change notifications the client asked for.

export interface LaneHost {
  /** the deployment's Mux, or undefined while its server is not running */
  mux(target: GatewayTarget): Mux<MuxSession> | undefined;
  unavailable(target: GatewayTarget): { status: number; message: string; headers: Record<string, string> };
  exposure(target: GatewayTarget): Exposure;
  /** what happens once a request is answered (log line, request log, metrics) */
  done(req: IncomingMessage, target: GatewayTarget, msg: Msg, started: number, bytesIn: number, client: Envelope["client"]): (answer: Msg | undefined, bytesOut: number) => void;
  /** one more for 'Total Usage' */
  count(res: ServerResponse, target: GatewayTarget): void;
  /** a long-lived stream to end when its key, grant or sign-in is revoked (and to forget when it ends) */
  watch(holder: Held): () => void;
  requestTimeoutMs: number;
}

/** How long a server's question waits for the client's retry with the answer. */
const ASK_WAIT_MS = 10 * 60_000;
/** Questions the server asks within this long of each other go to the client together. */
const ASK_GATHER_MS = 15;
/** Messages kept for a request while it waits for the client's retry (progress, logs), and their size. */
const MAX_HELD = 100;
const MAX_HELD_BYTES = 1024 * 1024;
/** Questions one call may have open at once: more are answered with an error. */
const MAX_QUESTIONS = 16;
/** What the server may ask a client of this revision. */
const QUESTIONS = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);
/** Listen streams one caller (key, token or sign-in) may hold on a deployment. */
const MAX_LISTENS_PER_CALLER = 10;
const MAX_STATE_LENGTH = 2048;
const KEEPALIVE_MS = 15_000;
/** Calls in flight (or waiting for a retry) per deployment: as many as its sessions may have together. */
const MAX_CALLS = 2000;
/** Open subscriptions/listen streams per deployment. */
const MAX_LISTENS = 100;
const MAX_LISTEN_URIS = 100;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Only the flags the gateway routes by, from a request's clientCapabilities. */
function flagsOf(caps: Record<string, unknown>): ClientCapabilities {
  return { sampling: caps.sampling !== undefined, elicitation: caps.elicitation !== undefined, roots: caps.roots !== undefined };
}

/** One request's view of the server's channel: a peer of the Mux that lives as long as the request (and its retries). */
class OneRequest implements MuxSession {
  readonly inflight = new Map<string, string>();
  readonly subscriptions = new Set<string>();
  readonly standalone = undefined;
  readonly hasOpenStream = true;
  lastActive = Date.now();
  /** while its client holds the server's questions: the server's other messages are not its */
  parked = false;
  constructor(readonly capabilities: ClientCapabilities) {}
  notify(): boolean {
    return false;
  }
  close(): void {}
}

/** The server's result as this revision's clients expect it: resultType, caching hints, the server's identity; nothing of what this revision removed. */
export function modernAnswer(method: string, answer: Msg, serverInfo: unknown): Msg {
  if (answer.error !== undefined) {
    const e = answer.error as { code?: unknown; message?: unknown; data?: unknown };
    // "Resource not found" is -32602 with the URI in this revision.
    if (e && e.code === -32002) return { ...answer, error: { code: RPC.invalidParams, message: String(e.message ?? "Resource not found"), data: isObject(e.data) ? e.data : {} } };
    return answer;
  }
  const r: Record<string, unknown> = isObject(answer.result) ? { ...answer.result } : {};
  r.resultType = "complete";
  if (CACHEABLE.has(method)) {
    // What a client sees depends on who it is (hidden tools, pinned definitions): never shared, never cached long.
    r.ttlMs = typeof r.ttlMs === "number" && Number.isInteger(r.ttlMs) && r.ttlMs >= 0 ? Math.min(r.ttlMs, 60_000) : 0;
    r.cacheScope = "private";
  }
  if (method === "tools/list" && Array.isArray(r.tools)) r.tools = r.tools.map((t) => (isObject(t) && "execution" in t ? (({ execution: _, ...rest }) => rest)(t) : t));
  const meta = isObject(r._meta) ? { ...r._meta } : {};
  if (serverInfo !== undefined) meta[META.serverInfo] = serverInfo;
  r._meta = meta;
  return { ...answer, result: r };
}

/** The HTTP answer of one request: JSON, or SSE frames (no event ids: this revision does not resume) once something comes before the answer. */
class Response {
  private streaming = false;
  private keepalive?: NodeJS.Timeout;
  bytes = 0;
  constructor(
    readonly res: ServerResponse,
    private readonly budget: OutboundBudget,
  ) {}

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  frame(msg: Msg): void {
    const out = serialize(msg);
    if (!out || this.gone) return;
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, SSE_HEADERS);
      this.keepalive = setInterval(() => writeBounded(this.res, ": keepalive\n\n", this.budget), KEEPALIVE_MS).unref();
    }
    this.bytes += Buffer.byteLength(out.text);
    writeBounded(this.res, `event: message\ndata: ${out.text}\n\n`, this.budget);
  }

  /** The answer, as the last frame or the whole JSON body; what went out (an answer too deep becomes an error). */
  finish(msg: Msg, status = 200): Msg {
    clearInterval(this.keepalive);
    const { text, sent } = serialize(msg)!;
    this.bytes += Buffer.byteLength(text);
    if (this.gone) return sent;
    if (this.streaming) this.res.end(`event: message\ndata: ${text}\n\n`);
    else this.res.writeHead(status, { "content-type": MEDIA.json, "content-length": Buffer.byteLength(text) }).end(text);
    return sent;
  }
}

/** One client request to the server, across its 'input_required' rounds. */
class Call implements Outlet {
  readonly peer: OneRequest;
  /** the HTTP request answering now (undefined while the client has the server's questions) */
  private http?: { response: Response; clientId: Id; progressToken?: unknown; logLevel?: Envelope["logLevel"]; done: (answer: Msg | undefined, bytes: number) => void };
  /** the server's questions not yet answered: key -> the server's request id, and the question */
  readonly asked = new Map<string, Id>();
  private readonly questions = new Map<string, { method: string; params: unknown }>();
  private gathering = false;
  private gatherTimer?: NodeJS.Timeout;
  private held: Msg[] = [];
  private heldBytes = 0;
  private final?: Msg;
  private seq = 0;
  finished = false;
  round = 0;
  expiry?: NodeJS.Timeout;

  constructor(
    private readonly lane: StatelessLane,
    readonly id: string,
    readonly mux: Mux<MuxSession>,
    readonly target: GatewayTarget,
    readonly userId: string,
    readonly method: string,
    readonly name: string | undefined,
    /** the client's id of the first request: the server's call is known by it */
    readonly firstId: Id,
    capabilities: ClientCapabilities,
    private readonly serverInfo: unknown,
  ) {
    this.peer = new OneRequest(capabilities);
  }

  /** The HTTP request that answers now: the first one, or a retry with answers. */
  attach(response: Response, clientId: Id, envelope: Envelope, progressToken: unknown, done: (answer: Msg | undefined, bytes: number) => void): void {
    this.http = { response, clientId, progressToken, logLevel: envelope.logLevel, done };
    this.peer.parked = false;
    // The client left before the answer: the server's call is cancelled (unless the client now holds questions).
    response.res.once("close", () => {
      if (this.http?.response === response && !this.finished) this.lane.cancel(this, "The client closed the request");
    });
    this.heldBytes = 0;
    for (const m of this.held.splice(0)) this.push(m, false);
    if (this.final) {
      const f = this.final;
      this.final = undefined;
      this.push(f, true);
    }
  }

  push(msg: Msg, final: boolean): void {
    if (this.finished) return;
    const http = this.http;
    if (final) {
      if (!http) {
        this.final = msg; // answered while the client holds questions: its retry gets it
        return;
      }
      this.finished = true;
      this.lane.forget(this);
      this.closeQuestions("The request was answered");
      const sent = http.response.finish(modernAnswer(this.method, { ...msg, id: http.clientId }, this.serverInfo));
      http.done(sent, http.response.bytes);
      return;
    }
    if (msg.method !== undefined && msg.id !== undefined && msg.id !== null) return this.ask(msg);
    if (!http) {
      const size = serialize(msg)?.text.length ?? Infinity;
      if (this.held.length < MAX_HELD && this.heldBytes + size <= MAX_HELD_BYTES) {
        this.held.push(msg);
        this.heldBytes += size;
      }
      return;
    }
    if (msg.method === "notifications/progress") {
      if (http.progressToken === undefined) return;
      http.response.frame({ ...msg, params: { ...msg.params, progressToken: http.progressToken } });
      return;
    }
    if (msg.method === "notifications/message") {
      // Logs only for a request that asked for them, at its level or above.
      const level = LOG_LEVELS.indexOf(msg.params?.level as never);
      if (!http.logLevel || level < LOG_LEVELS.indexOf(http.logLevel)) return;
      http.response.frame(msg);
      return;
    }
    // The rest (a cancelled question, task and elicitation-complete notices) does not exist in this revision.
  }

  /** The server asks the client something: gathered briefly, then sent as the request's 'input_required' answer. */
  private ask(m: Msg): void {
    if (!MAY_ASK.has(this.method) || !QUESTIONS.has(m.method!)) {
      return this.mux.answerServer(this.peer, errorAnswer(m.id, RPC.methodNotFound, `A ${this.method} request cannot be asked ${String(m.method).slice(0, 100)} in protocol revision 2026-07-28`));
    }
    if (this.asked.size >= MAX_QUESTIONS) return this.mux.answerServer(this.peer, errorAnswer(m.id, RPC.serverError, `Too many questions open for one request (at most ${MAX_QUESTIONS})`));
    const key = `${String(m.method).split("/")[0]}-${++this.seq}`;
    this.asked.set(key, m.id!);
    const { _meta: _, elicitationId: _e, task: _t, ...params } = isObject(m.params) ? m.params : {};
    this.questions.set(key, { method: m.method!, params });
    if (this.gathering) return;
    this.gathering = true;
    this.gatherTimer = setTimeout(() => {
      this.gathering = false;
      this.askOpenQuestions();
    }, ASK_GATHER_MS);
  }

  /** Answers a question of the server's with the client's answer. */
  answer(key: string, result: Record<string, unknown>): void {
    const serverId = this.asked.get(key);
    if (serverId === undefined) return;
    this.asked.delete(key);
    this.questions.delete(key);
    this.mux.answerServer(this.peer, { jsonrpc: "2.0", id: serverId, result });
  }

  /** The questions nobody will answer now: an elicitation is declined ('cancel'), anything else gets an error. */
  closeQuestions(why: string): void {
    for (const [key, serverId] of [...this.asked]) {
      const q = this.questions.get(key);
      this.asked.delete(key);
      this.questions.delete(key);
      this.mux.answerServer(this.peer, q?.method === "elicitation/create" ? { jsonrpc: "2.0", id: serverId, result: { action: "cancel" } } : errorAnswer(serverId, RPC.serverError, why));
    }
  }

  /**
   * Ends the current HTTP request with every open question and a new requestState; the server's
   * call waits for the retry. Nothing to ask, or nobody to ask it (the client holds the questions
   * already): nothing happens.
   */
  askOpenQuestions(): void {
    const http = this.http;
    if (this.finished || !http || this.asked.size === 0 || this.gathering) return;
    const inputRequests: Record<string, unknown> = {};
    for (const [key, q] of this.questions) inputRequests[key] = q;
    this.http = undefined;
    this.peer.parked = true;
    this.round++;
    const answer: Msg = { jsonrpc: "2.0", id: http.clientId, result: { resultType: "input_required", inputRequests, requestState: this.lane.seal(this) } };
    const sent = http.response.finish(answer);
    http.done(sent, http.response.bytes);
    this.mux.rearm(this.peer, this.firstId, ASK_WAIT_MS + this.lane.requestTimeoutMs);
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => this.lane.cancel(this, "The client did not answer the server's questions in time"), ASK_WAIT_MS).unref();
  }

  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.lane.forget(this);
    clearTimeout(this.gatherTimer);
    this.closeQuestions("The request was cancelled");
    const http = this.http;
    if (http) {
      http.done(undefined, http.response.bytes);
      // Its client may still be there (the gateway is stopping): it is told why rather than left with nothing.
      http.response.finish(errorAnswer(http.clientId, RPC.serverError, "The request was cancelled"));
    }
  }

  get waiting(): boolean {
    return !this.http && !this.finished;
  }
}

/** A subscriptions/listen stream: the change notifications its client asked for, tagged with the listen request's id. */
class Listener implements MuxSession {
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
    private readonly lane: StatelessLane,
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
    this.keepalive = setInterval(() => writeBounded(res, ": keepalive\n\n", mux.outbound), KEEPALIVE_MS).unref();
    res.once("close", () => this.end(false));
  }

  private write(msg: Msg) {
    if (this.closed || this.res.destroyed) return;
    const out = serialize(msg);
    if (out) writeBounded(this.res, `event: message\ndata: ${out.text}\n\n`, this.mux.outbound);
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
    for (const uri of uris) this.mux.forward(this, { jsonrpc: "2.0", id: `listen-sub-${++this.seq}`, method: "resources/subscribe", params: { uri } }, DISCARD);
  }

  /** A change notification from the server (or the gateway): sent when the client asked for its kind. */
  notify(m: Msg): boolean {
    const method = m.method ?? "";
    const list = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method)?.[1] as "tools" | "prompts" | "resources" | undefined;
    if (list && this.wants[list]) this.write(this.tagged(method, isObject(m.params) ? m.params : {}));
    else if (method === "notifications/resources/updated" && this.subscriptions.has(String(m.params?.uri))) this.write(this.tagged(method, m.params ?? {}));
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

  unwatch?: () => void;

  end(graceful: boolean): void {
    if (this.closed) return;
    this.unwatch?.();
    if (graceful) this.write({ jsonrpc: "2.0", id: this.listenId, result: { resultType: "complete", _meta: { [META.subscriptionId]: this.listenId, [META.serverInfo]: this.serverInfo } } });
    this.closed = true;
    clearInterval(this.keepalive);
    // The server's subscriptions go when no other client holds them (Mux.forward decides).
    this.mux.detach(this);
    if (!this.mux.dead) for (const uri of [...this.subscriptions]) this.mux.forward(this, { jsonrpc: "2.0", id: `listen-unsub-${++this.seq}`, method: "resources/unsubscribe", params: { uri } }, DISCARD);
    this.lane.dropListener(this);
    if (!this.res.writableEnded) this.res.end();
  }
}

/** An outlet whose answers nobody reads (the listen streams' own subscribe requests). */
const DISCARD: Outlet = { push: () => {}, abandon: () => {} };

/** What the server said of itself when the gateway initialized it. */
interface ServerFacts {
  capabilities?: Record<string, unknown>;
  serverInfo?: unknown;
  instructions?: unknown;
}

export class StatelessLane {
  /** open calls by id (the ones waiting for a retry are found through their requestState) */
  private readonly calls = new Map<string, Call>();
  private readonly listeners = new Map<string, Set<Listener>>();
  /** each server process's initialize result (what discover says, and its identity) */
  private readonly facts = new WeakMap<Mux<MuxSession>, ServerFacts>();
  /** open calls per deployment */
  private readonly openCalls = new Map<string, number>();
  /** requestState is sealed with a key of this process: the server's call it continues lives here too */
  private readonly key = randomBytes(32);
  private seq = 0;

  constructor(private readonly host: LaneHost) {}

  get requestTimeoutMs(): number {
    return this.host.requestTimeoutMs;
  }

  /** A POST that claims this revision (or whose header does). */
  async post(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, msg: Msg, bytes: number, started: number): Promise<void> {
    if (msg.method === undefined) return void res.writeHead(202).end(); // an answer: this revision's clients send none
    if (msg.id === undefined || msg.id === null) return void res.writeHead(202).end(); // notifications: a closed stream already cancelled its request
    const mux = this.host.mux(target);
    let init: ServerFacts | undefined;
    if (mux && !mux.dead) {
      // The server's initialize result, asked once per server process (the hot path does not wait for it again).
      init = this.facts.get(mux);
      if (!init) {
        const answer = await mux.initialize({ protocolVersion: LATEST_VERSION }).catch((e: unknown) => errorAnswer(null, RPC.serverError, (e as Error).message));
        if (!answer.error) {
          init = answer.result as ServerFacts;
          this.facts.set(mux, init);
        }
      }
    }
    // The client left while the server was asked who it is: nothing to answer, nothing to start.
    if (res.destroyed) return;
    const checked = checkModern(req, msg, init?.capabilities ?? undefined);
    if ("refusal" in checked) {
      const r = checked.refusal;
      const body = JSON.stringify(errorAnswer(msg.id, r.code, r.message, r.data));
      return void res.writeHead(r.status, { "content-type": MEDIA.json, "content-length": Buffer.byteLength(body) }).end(body);
    }
    const envelope = checked.envelope;
    if (!mux || mux.dead || !init) {
      const u = this.host.unavailable(target);
      return rpcError(res, u.status, u.message, u.headers, RPC.serverError, msg.id);
    }
    const done = this.host.done(req, target, msg, started, bytes, envelope.client);
    const response = new Response(res, mux.outbound);
    const method = msg.method;
    if (method === "server/discover") {
      this.host.count(res, target);
      const answer = modernAnswer(method, { jsonrpc: "2.0", id: msg.id, result: discoverResult(init) }, init.serverInfo);
      return void done(response.finish(answer), response.bytes);
    }
    if (method === "subscriptions/listen") return this.listen(res, target, who, mux, msg, init, done);
    const state = msg.params?.requestState;
    if (state !== undefined) return this.resume(response, target, who, msg, envelope, done);
    const open = this.openCalls.get(target.id) ?? 0;
    if (open >= MAX_CALLS) {
      const answer = errorAnswer(msg.id, RPC.serverError, `Too many requests in flight for this deployment (at most ${MAX_CALLS}); try again when some have finished`);
      return void done(response.finish(answer, 429), response.bytes);
    }
    const call = new Call(this, `c${++this.seq}`, mux, target, who.userId, method, requestName(method, msg.params), msg.id, flagsOf(envelope.capabilities), init.serverInfo);
    this.calls.set(call.id, call);
    this.openCalls.set(target.id, open + 1);
    call.attach(response, msg.id, envelope, msg.params?._meta?.progressToken, done);
    const params = legacyParams(msg.params);
    if (mux.forward(call.peer, { jsonrpc: "2.0", id: msg.id, method, ...(params ? { params } : {}) }, call, this.host.exposure(target))) this.host.count(res, target);
  }

  /** A retry with the answers to the server's questions: they go to the server, and this request answers for its call. */
  private resume(response: Response, target: GatewayTarget, who: Caller, msg: Msg, envelope: Envelope, done: (answer: Msg | undefined, bytes: number) => void): void {
    const call = this.open(msg.params?.requestState);
    const name = requestName(msg.method, msg.params);
    if (!call || !call.waiting || call.userId !== who.userId || call.target.id !== target.id || call.method !== msg.method || call.name !== name) {
      const answer = errorAnswer(msg.id, RPC.invalidParams, "Invalid or expired requestState", { reason: "invalid_request_state" });
      return void done(response.finish(answer), response.bytes);
    }
    this.host.count(response.res, target);
    const responses = isObject(msg.params?.inputResponses) ? msg.params.inputResponses : {};
    for (const key of [...call.asked.keys()]) {
      const value = responses[key];
      // Bare results only (an ElicitResult, a CreateMessageResult, a ListRootsResult); a wrapper is no answer.
      if (!isObject(value) || "method" in value || "jsonrpc" in value) continue;
      call.answer(key, value);
    }
    clearTimeout(call.expiry);
    call.mux.rearm(call.peer, call.firstId, this.host.requestTimeoutMs);
    call.attach(response, msg.id!, envelope, msg.params?._meta?.progressToken, done);
    // Questions left unanswered are asked again.
    call.askOpenQuestions();
  }

  /** requestState: which call, for whom, about what, until when; HMAC-sealed with this process's key. */
  seal(call: Call): string {
    const payload = Buffer.from(JSON.stringify({ c: call.id, r: call.round, x: Date.now() + ASK_WAIT_MS })).toString("base64url");
    const mac = createHmac("sha256", this.key).update(payload).digest("base64url");
    return `v1.${payload}.${mac}`;
  }

  private open(state: unknown): Call | undefined {
    if (typeof state !== "string" || state.length > MAX_STATE_LENGTH) return undefined;
    const [v, payload, mac] = state.split(".");
    if (v !== "v1" || !payload || !mac) return undefined;
    // Compared as text: base64 decoding ignores a last character's spare bits, so decoded bytes would accept variants of the seal.
    const want = Buffer.from(createHmac("sha256", this.key).update(payload).digest("base64url"));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
    try {
      const p = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { c?: unknown; r?: unknown; x?: unknown };
      if (typeof p.x !== "number" || p.x < Date.now()) return undefined;
      const call = this.calls.get(String(p.c));
      // Only the latest round's state: an older one was already answered.
      return call && call.round === p.r ? call : undefined;
    } catch {
      return undefined;
    }
  }

  /** The client left, or never came back with answers: the server's call is cancelled and its questions answered 'cancel'. */
  cancel(call: Call, reason: string): void {
    if (call.finished) return;
    call.closeQuestions(reason);
    call.mux.notifyServer(call.peer, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: call.firstId, reason } });
    call.abandon();
  }

  forget(call: Call): void {
    clearTimeout(call.expiry);
    if (!this.calls.delete(call.id)) return;
    const n = (this.openCalls.get(call.target.id) ?? 1) - 1;
    if (n > 0) this.openCalls.set(call.target.id, n);
    else this.openCalls.delete(call.target.id);
  }

  private listen(res: ServerResponse, target: GatewayTarget, who: Caller, mux: Mux<MuxSession>, msg: Msg, init: { capabilities?: Record<string, unknown>; serverInfo?: unknown }, done: (answer: Msg | undefined, bytes: number) => void): void {
    const filter = msg.params?.notifications;
    const uris = isObject(filter) ? filter.resourceSubscriptions : undefined;
    if (!isObject(filter) || (uris !== undefined && !(Array.isArray(uris) && uris.length <= MAX_LISTEN_URIS && uris.every((u) => typeof u === "string" && u.length <= 2048)))) {
      const answer = errorAnswer(msg.id, RPC.invalidParams, "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter");
      const body = JSON.stringify(answer);
      res.writeHead(200, { "content-type": MEDIA.json, "content-length": Buffer.byteLength(body) }).end(body);
      return done(answer, Buffer.byteLength(body));
    }
    const set = this.listeners.get(target.id) ?? new Set<Listener>();
    const mine = [...set].filter((l) => l.keyHash === who.keyHash && l.token === who.token && l.signIn === who.signIn).length;
    if (set.size >= MAX_LISTENS || mine >= MAX_LISTENS_PER_CALLER) {
      const answer = errorAnswer(msg.id, RPC.internal, "Subscription limit reached");
      const body = JSON.stringify(answer);
      res.writeHead(200, { "content-type": MEDIA.json, "content-length": Buffer.byteLength(body) }).end(body);
      return done(answer, Buffer.byteLength(body));
    }
    this.host.count(res, target);
    const caps = init.capabilities ?? {};
    const has = (k: string) => caps[k] !== undefined;
    const subscribable = isObject(caps.resources) && caps.resources.subscribe === true;
    // The gateway itself announces list changes (tool selection, approved definitions) for every list the server has.
    const wants = { tools: filter.toolsListChanged === true && has("tools"), prompts: filter.promptsListChanged === true && has("prompts"), resources: filter.resourcesListChanged === true && has("resources") };
    const honored: Record<string, unknown> = {};
    if (wants.tools) honored.toolsListChanged = true;
    if (wants.prompts) honored.promptsListChanged = true;
    if (wants.resources) honored.resourcesListChanged = true;
    const subscribe = subscribable && Array.isArray(uris) ? [...new Set(uris as string[])] : [];
    if (subscribe.length) honored.resourceSubscriptions = subscribe;
    const l = new Listener(this, target.id, mux, res, msg.id!, wants, init.serverInfo, who);
    l.unwatch = this.host.watch(l);
    set.add(l);
    this.listeners.set(target.id, set);
    mux.attach(l);
    l.subscribe(subscribe);
    l.acknowledge(honored);
    done({ jsonrpc: "2.0", id: msg.id!, result: {} }, 0);
  }

  dropListener(l: Listener): void {
    const set = this.listeners.get(l.deploymentId);
    set?.delete(l);
    if (set?.size === 0) this.listeners.delete(l.deploymentId);
  }

  /** What the deployment exposes changed (tool selection, approved definitions): its listeners hear it. */
  listsChanged(deploymentId: string): void {
    for (const l of this.listeners.get(deploymentId) ?? []) for (const list of ["tools", "prompts", "resources"]) l.notify({ jsonrpc: "2.0", method: `notifications/${list}/list_changed` });
  }

  close(): void {
    for (const set of [...this.listeners.values()]) for (const l of [...set]) l.end(true);
    for (const c of [...this.calls.values()]) this.cancel(c, "The gateway is shutting down");
  }
}

/** server/discover, from the server's initialize result: the revisions spoken here, its capabilities (lists announced as changing), instructions. */
function discoverResult(init: { capabilities?: Record<string, unknown>; instructions?: unknown }): Record<string, unknown> {
  const caps: Record<string, unknown> = { ...(init.capabilities ?? {}) };
  delete caps.tasks;
  for (const list of ["tools", "prompts", "resources"]) if (isObject(caps[list])) caps[list] = { ...caps[list], listChanged: true };
  const r: Record<string, unknown> = { supportedVersions: ALL_VERSIONS, capabilities: caps };
  if (typeof init.instructions === "string") r.instructions = init.instructions;
  return r;
}
