import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { DefinitionKind } from "../../../shared/definitions.js";
import type { Definition } from "../deployments/definitions.js";
import type { Bus } from "../../cluster/bus.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { KeyRevocations } from "../publishers/revocations.js";
import type { Runner } from "../runtime/runner.js";
import { BROWSER_CALLER, GatewayAccess, type BrowserSessions, type Caller } from "./admission/access.js";
import { announcingToolChanges, TargetExposure } from "./exposure.js";
import { publish, subscribe, TOPICS } from "../../cluster/topics.js";
import { COUNTED_HEADER, ForwardedAccess, Forwarder, MOVED_HEADER } from "./cluster.js";
import { accepts, header, readMessage, rpcError, sendJson } from "./wire/http.js";
import type { OAuthPort } from "./admission/oauth-tokens.js";
import { capabilityFlags, HEADER, isSupportedVersion, LEGACY_VERSION, MEDIA, RPC, type Msg } from "./protocol.js";
import { clientOf, isPlayground, markPlayground, whenAnswered, type GatewayObserver } from "./observe.js";
import { HttpReply, LegacyReply } from "./wire/replies.js";
import type { GatewayTarget, PinsPort } from "./repo.js";
import { METADATA_PREFIX, ResourceMetadata } from "./resource-metadata.js";
import { Session } from "./session.js";
import { StatelessLane } from "./stateless/lane.js";
import { isModernVersion, modernClaim } from "./stateless/envelope.js";
import { Sessions } from "./sessions.js";
import { GATEWAY_TEXT } from "./text.js";
import { UsageCounter } from "./usage.js";
import type { FairUse, Verdict } from "./fair-use.js";

// The gateway: every running deployment at {PUBLIC_URL}/{proxy_id}/mcp (Streamable HTTP) and
// /{proxy_id}/sse + /{proxy_id}/messages (legacy HTTP+SSE), as docs/gateway.md describes, and
// each one's OAuth protected resource metadata. It sits in front of the web app on the same port
// as a plain Node handler: the hot path parses just enough JSON-RPC to route. This file is the
// two transports' HTTP methods; who may connect is access.ts, the open sessions sessions.ts, the
// routing to the server's channel mux.ts and the metadata resource-metadata.ts.

export { GATEWAY_TEXT };

const ROUTE = /^\/([0-9a-f]{32})\/(mcp|sse|messages)\/?$/;

export interface GatewayDeps {
  config: Config;
  db: Db;
  log: Logger;
  /**
   * The deployments' MCP channels when sessions are served in this process (all-in-one, or a
   * runner): `channel(id)` once the server answered initialize, `runs(id)` while it runs or
   * restarts. Without it this is a front gateway: it admits requests and forwards them to the
   * runner holding the deployment (cluster.ts).
   */
  runner?: Pick<Runner, "channel" | "runs">;
  /** CLUSTER_SECRET: a front gateway sends it to runners; a runner's gateway (`forwarded`) was given requests that carried it */
  clusterSecret?: string;
  /** a runner's gateway: requests come from front gateways, which already admitted the caller */
  forwarded?: boolean;
  /** a revoked key or OAuth grant ends the sessions opened with it */
  revocations: KeyRevocations;
  /** the deployments' pinned definitions: read with each target, told of each listing (features/deployments writes them) */
  pins: PinsPort;
  /** OAuth access tokens: the authorization server's grants */
  oauth: OAuthPort;
  /** the web app's sign-in sessions: the playground's requests carry the page's cookie instead of a key */
  browserSessions?: BrowserSessions;
  /** told of every answered request and of sessions opening and ending (request log, metrics, traces) */
  observer?: GatewayObserver;
  /** a catalogue entry's popularity changed (usage.ts): the directory's caches go */
  popularityChanged?: () => void;
  /** fair use: requests a minute per deployment and per credential, by plan (fair-use.ts); checked by the gateway the client reached */
  fairUse?: Pick<FairUse, "check">;
  /** where a change to what a deployment exposes (its owner's tool selection, its pinned definitions) is announced (TOPICS.exposure) */
  bus?: Pick<Bus, "subscribe" | "publish">;
}

/** A front gateway has no channels of its own. */
const NO_RUNNER: Pick<Runner, "channel" | "runs"> = { channel: () => undefined, runs: () => false };

export class Gateway {
  private readonly access: Pick<GatewayAccess, "admit" | "forget">;
  private readonly stopWatchingTools: () => void;
  private readonly sessions: Sessions;
  private readonly metadata: ResourceMetadata;
  private readonly forwarder?: Forwarder;
  private readonly runner: Pick<Runner, "channel" | "runs">;
  /** each looked-up target's exposure rules, made once per lookup */
  private readonly exposures = new WeakMap<GatewayTarget, TargetExposure>();
  /** the 2026-07-28 requests: no sessions (stateless/lane.ts) */
  private readonly stateless: StatelessLane;
  /** listings being recorded (deployment and kind): one write at a time each */
  private readonly recording = new Set<string>();
  readonly usage: UsageCounter;

  constructor(private readonly d: GatewayDeps) {
    this.runner = d.runner ?? NO_RUNNER;
    if (d.forwarded) {
      if (!d.runner) throw new Error("a runner's gateway needs the runner");
      this.access = new ForwardedAccess({ db: d.db, pins: d.pins, runner: d.runner });
    } else {
      const access = new GatewayAccess(d);
      this.access = access;
      if (!d.runner) {
        if (!d.clusterSecret) throw new Error("a front gateway needs CLUSTER_SECRET");
        this.forwarder = new Forwarder({
          secret: d.clusterSecret,
          log: d.log,
          forget: (p) => access.forget(p),
          count: (t) => this.usage.add(t.serverKind, t.serverRef, t.userId),
        });
      }
    }
    this.metadata = new ResourceMetadata(d);
    this.sessions = new Sessions({ ...d, runner: this.runner });
    this.stateless = new StatelessLane({
      mux: (t) => this.sessions.mux(t.id),
      unavailable: (t) => this.unavailable(t),
      exposure: (t) => this.exposure(t),
      done: (req, target, msg, started, bytes, client) => this.onDone(req, target, msg, started, bytes, client, "streamable"),
      count: (res, t) => this.count(res, t),
      watch: (h) => this.sessions.watch(h),
      requestTimeoutMs: d.config.GATEWAY_REQUEST_TIMEOUT_MS,
    });
    // Usage: exactly once per request, by the gateway the client reached (a runner's gateway says so in a header).
    this.usage = new UsageCounter(d.db, d.log, d.config.USAGE_FLUSH_MS, d.popularityChanged);
    // An owner hid or showed tools, or approved a changed definition (or a listing pinned or
    // recorded one): the next request sees the new rules, open sessions are told to list again.
    this.stopWatchingTools =
      (d.bus &&
        subscribe(d.bus, TOPICS.exposure, (changed) => {
          // A gap in the bus (RESYNC): whatever changed meanwhile is looked up again.
          if (!changed) return this.access.forget();
          this.access.forget(changed.proxyId);
          // A listing recorded (quiet) changes nothing a session was shown: only the lookups go.
          if (changed.quiet) return;
          this.sessions.listsChanged(changed.id);
          this.stateless.listsChanged(changed.id);
        })) ||
      (() => {});
  }

  /** Node request listener: answers gateway paths, hands everything else to `next`. */
  handler(next: RequestListener): RequestListener {
    return (req, res) => {
      const url = req.url ?? "/";
      // cheap test first: "/" + 32 hex digits + "/"
      if (url.length < 36 || url.charCodeAt(33) !== 47) {
        if (url.charCodeAt(1) === 46 && url.startsWith(METADATA_PREFIX)) return this.metadata.handle(req, res, url, next);
        return next(req, res);
      }
      const q = url.indexOf("?");
      const m = ROUTE.exec(q < 0 ? url : url.slice(0, q));
      if (!m) return next(req, res);
      this.handle(req, res, m[1]!, m[2]!, q < 0 ? "" : url.slice(q + 1)).catch((e: unknown) => {
        this.d.log.error({ err: e }, "gateway request failed");
        if (!res.headersSent) rpcError(res, 500, GATEWAY_TEXT.internal, {}, RPC.internal);
        else res.end();
      });
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse, proxyId: string, kind: string, query: string) {
    const started = performance.now();
    const admitted = await this.access.admit(req, res, proxyId, query);
    if (!admitted) return;
    const { target, who } = admitted;
    if (who.keyHash.startsWith(BROWSER_CALLER)) markPlayground(req);
    const method = req.method ?? "GET";
    // Fair use, by the gateway the client reached (a runner's gateway was reached through one).
    if (this.d.fairUse && !this.d.forwarded && method !== "DELETE") {
      const v = this.d.fairUse.check(target.id, target.userId, who.keyHash);
      const verdict = v instanceof Promise ? await v : v;
      if (!verdict.ok) return this.limited(req, res, target, who, kind, query, verdict, started);
    }
    if (this.forwarder) return this.forwarder.forward(req, res, target, who, proxyId);
    if (kind === "mcp") {
      if (method === "POST") return this.post(req, res, target, who, started);
      if (method === "GET") return this.get(req, res, target, who);
      if (method === "DELETE") return this.delete(req, res, target, who);
      return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "GET, POST, DELETE" });
    }
    if (kind === "sse") {
      if (method === "GET") return this.legacyOpen(req, res, target, who, proxyId);
      return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "GET" });
    }
    if (method === "POST") return this.legacyPost(req, res, target, who, new URLSearchParams(query).get("sessionId") ?? "", started);
    return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "POST" });
  }

  /**
   * 429 with Retry-After: over the plan's requests a minute. A request with an id gets its
   * JSON-RPC error (on the legacy transport over the session's stream too, where its answers go)
   * and a request log row saying so.
   */
  private async limited(
    req: IncomingMessage,
    res: ServerResponse,
    target: GatewayTarget,
    who: Caller,
    kind: string,
    query: string,
    v: Extract<Verdict, { ok: false }>,
    started: number,
  ) {
    const message = GATEWAY_TEXT.rateLimited(v.limit, v.scope, v.retryAfterSec);
    const headers = { "retry-after": String(v.retryAfterSec) };
    if (req.method !== "POST") return rpcError(res, 429, message, headers);
    const read = await readMessage(req, res, this.d.config.GATEWAY_MAX_BODY_BYTES);
    if (!read) return;
    const { msg, bytes } = read;
    const id = msg.id ?? null;
    if (msg.method !== undefined && msg.id !== undefined) {
      const answer: Msg = { jsonrpc: "2.0", id: msg.id, error: { code: RPC.serverError, message } };
      this.onDone(req, target, msg, started, bytes, undefined, kind === "messages" ? "sse" : "streamable")(answer, 0, "rate_limited");
      if (kind === "messages")
        this.sessions.find(new URLSearchParams(query).get("sessionId") ?? "", who.userId, target.id, true)?.notify(answer);
    }
    rpcError(res, 429, message, headers, RPC.serverError, id);
  }

  /** 503: the server is starting or restarting (retry soon), or not running at all. */
  private unavailable(target: GatewayTarget): { status: number; message: string; headers: Record<string, string> } {
    const starting = this.runner.runs(target.id);
    // A runner's gateway asked for a deployment it does not hold: the front gateway looks it up again.
    if (this.d.forwarded && !starting)
      return { status: 503, message: GATEWAY_TEXT.starting, headers: { "retry-after": "2", [MOVED_HEADER]: "1" } };
    return {
      status: 503,
      message: starting ? GATEWAY_TEXT.starting : GATEWAY_TEXT.notRunning,
      headers: starting ? { "retry-after": "5" } : {},
    };
  }

  /** The session a request names (400 without one, 404 when it is not one of the caller's open sessions here). */
  private session(res: ServerResponse, id: string | undefined, target: GatewayTarget, who: Caller, legacy = false): Session | undefined {
    if (!id) return void rpcError(res, 400, GATEWAY_TEXT.sessionRequired);
    const s = this.sessions.find(id, who.userId, target.id, legacy);
    if (!s) return void rpcError(res, 404, GATEWAY_TEXT.sessionNotFound, {}, RPC.sessionNotFound);
    // A session opened with an OAuth token follows the client's refreshed tokens.
    if (s.token !== undefined && who.token !== undefined) s.token = who.token;
    return s;
  }

  private newSession(who: Caller, target: GatewayTarget, mux: Session["mux"], legacy: boolean): Session {
    const s = new Session(who.userId, who.keyHash, target.id, mux, legacy);
    s.signIn = who.signIn;
    s.token = who.token;
    s.expiresAt = who.expiresAt;
    return s;
  }

  /** The deployment's exposure rules (hidden tools, pinned definitions) for the Mux. */
  private exposure(target: GatewayTarget): TargetExposure {
    let e = this.exposures.get(target);
    if (!e) {
      e = new TargetExposure(target, (t, kind, defs, complete) => this.noteListing(t, kind, defs, complete));
      this.exposures.set(target, e);
    }
    return e;
  }

  /**
   * A listing showed definitions the database does not have as current (or the kind's first):
   * recorded off the request path; when that wrote anything, every gateway looks again and open
   * sessions list again (the owner's page shows the change).
   */
  private noteListing(target: GatewayTarget, kind: DefinitionKind, defs: Definition[], complete: boolean) {
    const key = `${target.id}:${kind}`;
    if (this.recording.has(key)) return;
    this.recording.add(key);
    this.d.pins
      .record(target, kind, defs, complete)
      .then(async (wrote: boolean) => {
        if (!wrote) return;
        this.access.forget(target.proxyId);
        if (this.d.bus) await publish(this.d.bus, TOPICS.exposure, { id: target.id, proxyId: target.proxyId, quiet: true });
      })
      .catch((e: unknown) => this.d.log.error({ err: e, deployment: target.id }, "could not record a listing's definitions"))
      .finally(() => this.recording.delete(key));
  }

  /** What happens once a request is answered (observe.ts). */
  private onDone(
    req: IncomingMessage,
    target: GatewayTarget,
    msg: Msg,
    started: number,
    bytesIn: number,
    client: Session["client"] | undefined,
    transport: "streamable" | "sse",
  ) {
    return whenAnswered(this.d.log, this.d.observer, { req, target, msg, started, bytesIn, client, transport });
  }

  private async post(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, started: number) {
    if (!(accepts(req.headers.accept, MEDIA.json) && accepts(req.headers.accept, MEDIA.sse)))
      return rpcError(res, 406, GATEWAY_TEXT.notAcceptable);
    if (!req.headers["content-type"]?.toLowerCase().startsWith(MEDIA.json)) return rpcError(res, 415, GATEWAY_TEXT.unsupportedMedia);
    const read = await readMessage(req, res, this.d.config.GATEWAY_MAX_BODY_BYTES);
    if (!read) return;
    const { msg, bytes } = read;
    // 2026-07-28: the request says so in its _meta (or its header does); no session.
    if (modernClaim(msg) !== undefined || isModernVersion(header(req, HEADER.protocolVersion)))
      return this.stateless.post(req, res, target, who, msg, bytes, started);
    if (msg.method === "initialize" && msg.id !== undefined) return this.initialize(req, res, target, who, msg, started, bytes);
    if (!this.versionOk(req, res)) return;
    const session = this.session(res, header(req, HEADER.sessionId), target, who);
    if (!session) return;
    if (msg.method !== undefined && msg.id !== undefined) {
      const done = this.onDone(req, target, msg, started, bytes, session.client, "streamable");
      if (session.mux.forward(session, msg, new HttpReply(res, session, done), this.exposure(target))) this.count(res, target);
      return;
    }
    if (msg.method !== undefined) session.mux.notifyServer(session, msg);
    else session.mux.answerServer(session, msg);
    res.writeHead(202).end();
  }

  /**
   * One more for 'Total Usage'. A runner's gateway tells the gateway that forwarded the request
   * (which counts it, so a runner lost with counts not yet written loses none), unless its answer
   * has already gone out (the legacy transport's initialize), in which case it counts here.
   */
  private count(res: ServerResponse, target: GatewayTarget) {
    // The owner's playground is not use (nor does a front gateway count it: no header says so).
    if (isPlayground(res.req)) return;
    if (!this.d.forwarded || res.headersSent) return this.usage.add(target.serverKind, target.serverRef, target.userId);
    res.setHeader(COUNTED_HEADER, "1");
    // The client (and so the gateway's connection) left before the answer: nobody else can count it.
    res.once("close", () => {
      if (!res.headersSent) this.usage.add(target.serverKind, target.serverRef, target.userId);
    });
  }

  private versionOk(req: IncomingMessage, res: ServerResponse): boolean {
    const version = header(req, HEADER.protocolVersion);
    if (version === undefined || isSupportedVersion(version)) return true;
    rpcError(res, 400, GATEWAY_TEXT.badVersion(version));
    return false;
  }

  /** initialize: a new session (or the legacy stream's), answered from the server's cached result for that protocol version. */
  private async initialize(
    req: IncomingMessage,
    res: ServerResponse,
    target: GatewayTarget,
    who: Caller,
    msg: Msg,
    started: number,
    bytesIn: number,
    existing?: Session,
  ) {
    const fail = (status: number, message: string, headers: Record<string, string> = {}) =>
      existing
        ? existing.notify({ jsonrpc: "2.0", id: msg.id!, error: { code: RPC.serverError, message } })
        : rpcError(res, status, message, headers, RPC.serverError, msg.id);
    const mux = existing?.mux ?? this.sessions.mux(target.id);
    if (!mux || mux.dead) {
      const u = this.unavailable(target);
      return fail(u.status, u.message, u.headers);
    }
    if (!existing && !this.sessions.makeRoom(mux)) return fail(429, GATEWAY_TEXT.tooManySessions(mux.sessions.size));
    let answer: Msg;
    try {
      answer = await mux.initialize(msg.params);
    } catch (e) {
      answer = { jsonrpc: "2.0", error: { code: RPC.serverError, message: (e as Error).message } };
    }
    const reply: Msg = { jsonrpc: "2.0", id: msg.id! };
    if (answer.error) reply.error = answer.error;
    else reply.result = announcingToolChanges(answer.result);
    const session = existing ?? this.newSession(who, target, mux, false);
    session.client = clientOf(msg.params);
    const body = JSON.stringify(reply);
    this.onDone(req, target, msg, started, bytesIn, session.client, existing ? "sse" : "streamable")(reply, Buffer.byteLength(body));
    if (!answer.error && !mux.dead) {
      this.count(res, target);
      session.protocolVersion = (answer.result as { protocolVersion: string }).protocolVersion;
      session.capabilities = capabilityFlags(msg.params?.capabilities);
      if (!existing) this.sessions.add(session);
    }
    if (existing) return existing.notify(reply);
    sendJson(res, 200, body, this.sessions.has(session) ? { [HEADER.sessionId]: session.id } : {});
  }

  private get(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller) {
    if (!accepts(req.headers.accept, MEDIA.sse)) return rpcError(res, 406, GATEWAY_TEXT.notAcceptableSse);
    if (!this.versionOk(req, res)) return;
    const session = this.session(res, header(req, HEADER.sessionId), target, who);
    if (!session) return;
    const last = header(req, HEADER.lastEventId);
    const found = last ? session.findStream(last) : undefined;
    // One GET stream at a time, resumed or not.
    if (found ? found.stream === session.standalone && found.stream.attached : session.standalone?.attached)
      return rpcError(res, 409, GATEWAY_TEXT.conflict);
    // A finished stream with nothing left to replay (a cancelled call's): 204, so the client neither
    // waits on an empty stream nor, as SDK clients do when one closes, asks again for a new one.
    if (found?.stream.exhausted(found.after)) return void res.writeHead(204).end();
    if (found) session.resume(found, res);
    else session.openStandalone(res);
  }

  private delete(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller) {
    if (!this.versionOk(req, res)) return;
    const session = this.session(res, header(req, HEADER.sessionId), target, who);
    if (!session) return;
    this.sessions.end(session);
    res.writeHead(200).end();
  }

  /** Legacy HTTP+SSE: the stream is the session; the endpoint event names where to POST. */
  private legacyOpen(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, proxyId: string) {
    if (!accepts(req.headers.accept ?? MEDIA.sse, MEDIA.sse)) return rpcError(res, 406, GATEWAY_TEXT.notAcceptableSse);
    const mux = this.sessions.mux(target.id);
    if (!mux) {
      const u = this.unavailable(target);
      return rpcError(res, u.status, u.message, u.headers);
    }
    if (!this.sessions.makeRoom(mux)) return rpcError(res, 429, GATEWAY_TEXT.tooManySessions(mux.sessions.size));
    const session = this.newSession(who, target, mux, true);
    session.protocolVersion = LEGACY_VERSION;
    const stream = session.openStandalone(res);
    if (!stream) return; // the client already left
    this.sessions.add(session);
    stream.onDetach = () => this.sessions.end(session);
    stream.writeRaw(`event: endpoint\ndata: /${proxyId}/messages?sessionId=${session.id}\n\n`);
  }

  private async legacyPost(
    req: IncomingMessage,
    res: ServerResponse,
    target: GatewayTarget,
    who: Caller,
    sessionId: string,
    started: number,
  ) {
    if (!this.session(res, sessionId, target, who, true)) return;
    const read = await readMessage(req, res, this.d.config.GATEWAY_MAX_BODY_BYTES);
    if (!read) return;
    const { msg, bytes } = read;
    // The stream may have closed while the body arrived.
    const session = this.session(res, sessionId, target, who, true);
    if (!session) return;
    if (msg.method === "initialize" && msg.id !== undefined) {
      res.writeHead(202).end("Accepted");
      return this.initialize(req, res, target, who, msg, started, bytes, session);
    }
    if (msg.method !== undefined && msg.id !== undefined) {
      // Forwarded before the 202, so the 202 can say it was counted.
      const done = this.onDone(req, target, msg, started, bytes, session.client, "sse");
      if (session.mux.forward(session, msg, new LegacyReply(session, done), this.exposure(target))) this.count(res, target);
      res.writeHead(202).end("Accepted");
      return;
    }
    res.writeHead(202).end("Accepted");
    if (msg.method !== undefined) session.mux.notifyServer(session, msg);
    else session.mux.answerServer(session, msg);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Shutdown: sessions end, the last usage counts are written. */
  async close(): Promise<void> {
    this.stopWatchingTools();
    this.stateless.close();
    this.forwarder?.close();
    this.sessions.close();
    await this.usage.close();
  }
}
