import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { apiKeyInQuery, hashKey, KEY_PATTERN, keyGeneration, onKeysRevoked, viewerFromApiKey } from "../publishers/api-keys.js";
import { findKeyOwner } from "../publishers/repo.js";
import type { Child } from "../runtime/child.js";
import type { Supervisor } from "../runtime/supervisor.js";
import { capabilityFlags, isSupportedVersion, Mux, RPC, SUPPORTED_VERSIONS } from "./mux.js";
import { findDeploymentByProxy, type GatewayTarget } from "./repo.js";
import { HttpReply, LegacyReply, Session, type Msg } from "./session.js";
import { UsageCounter } from "./usage.js";

// The gateway: every running deployment at {PUBLIC_URL}/{proxy_id}/mcp (Streamable HTTP) and
// /{proxy_id}/sse + /{proxy_id}/messages (legacy HTTP+SSE). It sits in front of the web app on the
// same port as a plain Node handler: the hot path parses just enough JSON-RPC to route.

const ROUTE = /^\/([0-9a-f]{32})\/(mcp|sse|messages)\/?$/;
export { SUPPORTED_VERSIONS };
const TARGET_TTL_MS = 5000;
/** A verified key is trusted this long without a database round trip; a revocation in this process ends that at once. */
const KEY_TTL_MS = 10_000;
const KEY_CACHE_MAX = 10_000;

export const GATEWAY_TEXT = {
  missingKey: "Missing API key: send Authorization: Bearer <one of your API keys>",
  invalidKey: "Invalid or revoked API key",
  keyInQuery: "API keys are not accepted in the URL; send Authorization: Bearer <key>",
  notFound: "Not found",
  badHost: "Forbidden: the Host header does not name this server",
  badOrigin: "Forbidden: requests from this origin are not accepted",
  notAcceptable: "Not Acceptable: the client must accept both application/json and text/event-stream",
  notAcceptableSse: "Not Acceptable: the client must accept text/event-stream",
  unsupportedMedia: "Unsupported Media Type: send Content-Type: application/json",
  tooLarge: "Payload Too Large",
  parse: "Parse error: the body is not valid JSON",
  invalid: "Invalid Request: not a JSON-RPC 2.0 message",
  batch: "Invalid Request: batches are not supported; send one JSON-RPC message per request",
  sessionRequired: "Bad Request: Mcp-Session-Id header is required",
  sessionNotFound: "Session not found: it ended or expired; initialize a new session",
  badVersion: (v: string) => `Bad Request: unsupported MCP-Protocol-Version ${v.slice(0, 40)} (supported: ${SUPPORTED_VERSIONS.join(", ")})`,
  tooManySessions: (n: number) => `Too Many Requests: this deployment already has ${n} open sessions; end unused ones (DELETE) or let them expire`,
  conflict: "Conflict: this session already has an open SSE stream",
  starting: "The MCP server is starting or restarting; try again in a few seconds",
  notRunning: "The MCP server is not running; deploy it again from its page",
} as const;

/** Who is asking: the key's owner, and the key itself (hashed). */
interface Caller {
  userId: string;
  keyHash: string;
}

export interface GatewayDeps {
  config: Config;
  db: Db;
  supervisor: Supervisor;
  log: Logger;
}

function rpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code: number = RPC.serverError, id: Msg["id"] = null) {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

const accepts = (accept: string | undefined, type: string) => !!accept && (accept.includes(type) || accept.includes("*/*"));

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyError(413, GATEWAY_TEXT.tooLarge, RPC.invalidRequest);
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyError(413, GATEWAY_TEXT.tooLarge, RPC.invalidRequest));
      } else chunks.push(chunk);
    });
    req.once("end", resolve);
    req.once("error", reject);
  });
  try {
    return JSON.parse(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new BodyError(400, GATEWAY_TEXT.parse, RPC.parseError);
  }
}

function asMessage(v: unknown): Msg | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const m = v as Msg;
  if (m.jsonrpc !== "2.0") return undefined;
  const idOk = m.id === undefined || typeof m.id === "string" || typeof m.id === "number";
  if (!idOk) return undefined;
  if (m.method !== undefined) return typeof m.method === "string" && (m.params === undefined || (typeof m.params === "object" && m.params !== null)) ? m : undefined;
  return m.id !== undefined && ("result" in m || "error" in m) ? m : undefined;
}

export class Gateway {
  private readonly sessions = new Map<string, Session>();
  private readonly muxes = new WeakMap<Child, Mux>();
  private readonly targets = new Map<string, { target: GatewayTarget; at: number }>();
  private readonly keys = new Map<string, { userId: string; at: number; generation: number }>();
  private readonly allowedOrigins: Set<string>;
  private readonly allowedHosts: Set<string>;
  private readonly sweeper: NodeJS.Timeout;
  readonly usage: UsageCounter;

  constructor(private readonly d: GatewayDeps) {
    this.allowedOrigins = new Set(d.config.allowedOrigins);
    this.allowedHosts = new Set<string>();
    for (const o of d.config.allowedOrigins) {
      const u = new URL(o);
      this.allowedHosts.add(u.host.toLowerCase());
      // "example.com" and "example.com:443" name the same server
      if (!u.port) this.allowedHosts.add(`${u.hostname.toLowerCase()}:${u.protocol === "https:" ? 443 : 80}`);
    }
    // The machine itself (health checks, a local reverse proxy) on the port the app listens on.
    for (const h of ["localhost", "127.0.0.1", "[::1]"]) this.allowedHosts.add(`${h}:${d.config.PORT}`);
    this.usage = new UsageCounter(d.db, d.log, d.config.USAGE_FLUSH_MS);
    const idle = d.config.GATEWAY_SESSION_IDLE_MS;
    this.sweeper = setInterval(() => this.expire(), Math.min(60_000, Math.max(250, idle / 4))).unref();
    this.stopWatchingKeys = onKeysRevoked(() => void this.recheckSessionKeys());
  }

  private readonly stopWatchingKeys: () => void;

  /** A revoked key (or deleted account) ends the sessions opened with it, open streams included. */
  private async recheckSessionKeys() {
    const hashes = new Set([...this.sessions.values()].map((s) => s.keyHash));
    for (const hash of hashes) {
      try {
        if (await findKeyOwner(this.d.db, hash)) continue;
        for (const s of [...this.sessions.values()]) if (s.keyHash === hash) this.end(s);
      } catch (e) {
        this.d.log.error({ err: e }, "could not re-check the keys of open gateway sessions");
      }
    }
  }

  /** Node request listener: answers gateway paths, hands everything else to `next`. */
  handler(next: RequestListener): RequestListener {
    return (req, res) => {
      const url = req.url ?? "/";
      // cheap test first: "/" + 32 hex digits + "/"
      if (url.length < 36 || url.charCodeAt(33) !== 47) return next(req, res);
      const q = url.indexOf("?");
      const m = ROUTE.exec(q < 0 ? url : url.slice(0, q));
      if (!m) return next(req, res);
      this.handle(req, res, m[1]!, m[2]!, q < 0 ? "" : url.slice(q + 1)).catch((e: unknown) => {
        this.d.log.error({ err: e }, "gateway request failed");
        if (!res.headersSent) rpcError(res, 500, "Internal error", {}, RPC.internal);
        else res.end();
      });
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse, proxyId: string, kind: string, query: string) {
    const started = performance.now();
    const host = req.headers.host?.toLowerCase();
    if (!host || !this.allowedHosts.has(host)) return rpcError(res, 403, GATEWAY_TEXT.badHost);
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin)) return rpcError(res, 403, GATEWAY_TEXT.badOrigin);
    const params = new URLSearchParams(query);
    const challenge = { "www-authenticate": 'Bearer realm="mcp"' };
    if (query && apiKeyInQuery(new URL(`http://x/?${query}`))) return rpcError(res, 401, GATEWAY_TEXT.keyInQuery, challenge);
    const authz = req.headers.authorization;
    const key = authz && /^bearer\s+/i.test(authz) ? authz.replace(/^bearer\s+/i, "").trim() : "";
    if (!key) return rpcError(res, 401, GATEWAY_TEXT.missingKey, challenge);
    const invalid = { "www-authenticate": 'Bearer realm="mcp", error="invalid_token"' };
    if (!KEY_PATTERN.test(key)) return rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid);
    const keyHash = hashKey(key);
    const userId = await this.userOf(key, keyHash);
    if (!userId) return rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid);
    const target = await this.target(proxyId);
    // Another user's key: the deployment's existence is not revealed.
    if (!target || target.userId !== userId) return rpcError(res, 404, GATEWAY_TEXT.notFound);
    const who: Caller = { userId, keyHash };

    const method = req.method ?? "GET";
    if (kind === "mcp") {
      if (method === "POST") return this.post(req, res, target, who, started);
      if (method === "GET") return this.get(req, res, target, who);
      if (method === "DELETE") return this.delete(req, res, target, who);
      return rpcError(res, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" });
    }
    if (kind === "sse") {
      if (method === "GET") return this.legacyOpen(req, res, target, who, proxyId);
      return rpcError(res, 405, "Method Not Allowed", { allow: "GET" });
    }
    if (method === "POST") return this.legacyPost(req, res, target, who, params.get("sessionId") ?? "", started);
    return rpcError(res, 405, "Method Not Allowed", { allow: "POST" });
  }

  /** The key's owner: checked on every request, against the database at least every KEY_TTL_MS. */
  private async userOf(key: string, hash: string): Promise<string | undefined> {
    const hit = this.keys.get(hash);
    if (hit && hit.generation === keyGeneration() && Date.now() - hit.at < KEY_TTL_MS) return hit.userId;
    const generation = keyGeneration();
    const viewer = await viewerFromApiKey(this.d.db, key);
    if (!viewer) {
      this.keys.delete(hash);
      return undefined;
    }
    if (this.keys.size >= KEY_CACHE_MAX) this.keys.clear();
    this.keys.set(hash, { userId: viewer.id, at: Date.now(), generation });
    return viewer.id;
  }

  /** proxy id -> deployment, cached briefly; a deployment this process no longer runs is looked up again. */
  private async target(proxyId: string): Promise<GatewayTarget | undefined> {
    const hit = this.targets.get(proxyId);
    if (hit && Date.now() - hit.at < TARGET_TTL_MS && this.d.supervisor.supervises(hit.target.id)) return hit.target;
    const target = await findDeploymentByProxy(this.d.db, proxyId);
    if (target) this.targets.set(proxyId, { target, at: Date.now() });
    else this.targets.delete(proxyId);
    return target;
  }

  private mux(target: GatewayTarget): Mux | undefined {
    const child = this.d.supervisor.runningChild(target.id);
    if (!child) return undefined;
    let mux = this.muxes.get(child);
    if (!mux) {
      mux = new Mux(child, this.d.config.GATEWAY_REQUEST_TIMEOUT_MS, (why) => this.d.log.warn({ deployment: target.id, why }, "gateway dropped a client message"));
      this.muxes.set(child, mux);
    }
    return mux;
  }

  private unavailable(res: ServerResponse, target: GatewayTarget, id: Msg["id"] = null) {
    const starting = this.d.supervisor.supervises(target.id);
    rpcError(res, 503, starting ? GATEWAY_TEXT.starting : GATEWAY_TEXT.notRunning, starting ? { "retry-after": "5" } : {}, RPC.serverError, id);
  }

  private session(res: ServerResponse, id: string | undefined, target: GatewayTarget, who: Caller, legacy = false): Session | undefined {
    if (!id) return void rpcError(res, 400, GATEWAY_TEXT.sessionRequired);
    const s = this.sessions.get(id);
    if (s && (s.closed || s.mux.dead)) {
      s.close();
      this.sessions.delete(id);
    }
    // A session presented with another user's key, or on another deployment, does not exist for them.
    if (!s || s.closed || s.userId !== who.userId || s.deploymentId !== target.id || s.legacy !== legacy) {
      return void rpcError(res, 404, GATEWAY_TEXT.sessionNotFound, {}, RPC.sessionNotFound);
    }
    s.lastActive = Date.now();
    return s;
  }

  private async body(req: IncomingMessage, res: ServerResponse): Promise<Msg | undefined> {
    let raw: unknown;
    try {
      raw = await readJson(req, this.d.config.GATEWAY_MAX_BODY_BYTES);
    } catch (e) {
      if (e instanceof BodyError) return void rpcError(res, e.status, e.message, {}, e.code);
      throw e;
    }
    if (Array.isArray(raw)) return void rpcError(res, 400, GATEWAY_TEXT.batch, {}, RPC.invalidRequest);
    const msg = asMessage(raw);
    if (!msg) return void rpcError(res, 400, GATEWAY_TEXT.invalid, {}, RPC.invalidRequest);
    return msg;
  }

  private logDone(target: GatewayTarget, msg: Msg, started: number) {
    const tool = msg.method === "tools/call" && typeof msg.params?.name === "string" ? msg.params.name.slice(0, 100) : undefined;
    const method = msg.method?.slice(0, 100);
    return (answer: Msg) => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      this.d.log.info({ deployment: target.id, method, tool, status: answer.error ? "error" : "ok", ms }, "mcp request");
    };
  }

  private async post(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, started: number) {
    if (!(accepts(req.headers.accept, "application/json") && accepts(req.headers.accept, "text/event-stream"))) return rpcError(res, 406, GATEWAY_TEXT.notAcceptable);
    if (!req.headers["content-type"]?.toLowerCase().startsWith("application/json")) return rpcError(res, 415, GATEWAY_TEXT.unsupportedMedia);
    const msg = await this.body(req, res);
    if (!msg) return;
    if (msg.method === "initialize" && msg.id !== undefined) return this.initialize(res, target, who, msg, started);
    if (!this.versionOk(req, res)) return;
    const session = this.session(res, req.headers["mcp-session-id"] as string | undefined, target, who);
    if (!session) return;
    if (msg.method !== undefined && msg.id !== undefined) {
      if (session.mux.forward(session, msg, new HttpReply(res, session, this.logDone(target, msg, started)))) this.usage.add(target.serverKind, target.serverRef);
      return;
    }
    if (msg.method !== undefined) session.mux.notifyServer(session, msg);
    else session.mux.answerServer(session, msg);
    res.writeHead(202).end();
  }

  private versionOk(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers["mcp-protocol-version"] as string | undefined;
    if (version === undefined || isSupportedVersion(version)) return true;
    rpcError(res, 400, GATEWAY_TEXT.badVersion(version));
    return false;
  }

  /** Room for one more session on the deployment: the longest-idle one without calls or open streams makes way. */
  private makeRoom(mux: Mux): boolean {
    if (mux.sessions.size < this.d.config.GATEWAY_MAX_SESSIONS) return true;
    let idlest: Session | undefined;
    for (const s of mux.sessions) if (s.inflight.size === 0 && !s.hasOpenStream && (!idlest || s.lastActive < idlest.lastActive)) idlest = s;
    if (!idlest) return false;
    this.end(idlest);
    return true;
  }

  /** initialize: a new session (or the legacy stream's), answered from the server's cached result for that protocol version. */
  private async initialize(res: ServerResponse, target: GatewayTarget, who: Caller, msg: Msg, started: number, existing?: Session) {
    const fail = (status: number, message: string, headers: Record<string, string> = {}) =>
      existing ? existing.notify({ jsonrpc: "2.0", id: msg.id!, error: { code: RPC.serverError, message } }) : rpcError(res, status, message, headers, RPC.serverError, msg.id);
    const mux = existing?.mux ?? this.mux(target);
    if (!mux || mux.dead) {
      const starting = this.d.supervisor.supervises(target.id);
      return fail(503, starting ? GATEWAY_TEXT.starting : GATEWAY_TEXT.notRunning, starting ? { "retry-after": "5" } : {});
    }
    if (!existing && !this.makeRoom(mux)) return fail(429, GATEWAY_TEXT.tooManySessions(mux.sessions.size));
    let answer: Msg;
    try {
      answer = await mux.initialize(msg.params);
    } catch (e) {
      answer = { jsonrpc: "2.0", error: { code: RPC.serverError, message: (e as Error).message } };
    }
    const reply: Msg = { jsonrpc: "2.0", id: msg.id! };
    if (answer.error) reply.error = answer.error;
    else reply.result = answer.result;
    this.logDone(target, msg, started)(reply);
    const session = existing ?? new Session(who.userId, who.keyHash, target.id, mux, false);
    if (!answer.error && !mux.dead) {
      this.usage.add(target.serverKind, target.serverRef);
      session.protocolVersion = (answer.result as { protocolVersion: string }).protocolVersion;
      session.capabilities = capabilityFlags(msg.params?.capabilities);
      if (!existing) {
        mux.attach(session);
        this.sessions.set(session.id, session);
      }
    }
    if (existing) return existing.notify(reply);
    const body = JSON.stringify(reply);
    const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
    if (this.sessions.get(session.id) === session) headers["mcp-session-id"] = session.id;
    res.writeHead(200, headers).end(body);
  }

  private get(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller) {
    if (!accepts(req.headers.accept, "text/event-stream")) return rpcError(res, 406, GATEWAY_TEXT.notAcceptableSse);
    if (!this.versionOk(req, res)) return;
    const session = this.session(res, req.headers["mcp-session-id"] as string | undefined, target, who);
    if (!session) return;
    const last = req.headers["last-event-id"] as string | undefined;
    const found = last ? session.findStream(last) : undefined;
    // One GET stream at a time, resumed or not.
    if (found ? found.stream === session.standalone && found.stream.attached : session.standalone?.attached) return rpcError(res, 409, GATEWAY_TEXT.conflict);
    if (found) session.resume(found, res);
    else session.openStandalone(res);
  }

  private delete(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller) {
    if (!this.versionOk(req, res)) return;
    const session = this.session(res, req.headers["mcp-session-id"] as string | undefined, target, who);
    if (!session) return;
    this.end(session);
    res.writeHead(200).end();
  }

  private end(session: Session) {
    session.close();
    this.sessions.delete(session.id);
  }

  /** Legacy HTTP+SSE: the stream is the session; the endpoint event names where to POST. */
  private legacyOpen(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, proxyId: string) {
    if (!accepts(req.headers.accept ?? "text/event-stream", "text/event-stream")) return rpcError(res, 406, GATEWAY_TEXT.notAcceptableSse);
    const mux = this.mux(target);
    if (!mux) return this.unavailable(res, target);
    if (!this.makeRoom(mux)) return rpcError(res, 429, GATEWAY_TEXT.tooManySessions(mux.sessions.size));
    const session = new Session(who.userId, who.keyHash, target.id, mux, true);
    session.protocolVersion = "2024-11-05";
    const stream = session.openStandalone(res);
    if (!stream) return; // the client already left
    mux.attach(session);
    this.sessions.set(session.id, session);
    stream.onDetach = () => this.end(session);
    stream.writeRaw(`event: endpoint\ndata: /${proxyId}/messages?sessionId=${session.id}\n\n`);
  }

  private async legacyPost(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, sessionId: string, started: number) {
    if (!this.session(res, sessionId, target, who, true)) return;
    const msg = await this.body(req, res);
    if (!msg) return;
    // The stream may have closed while the body arrived.
    const session = this.session(res, sessionId, target, who, true);
    if (!session) return;
    res.writeHead(202).end("Accepted");
    if (msg.method === "initialize" && msg.id !== undefined) return this.initialize(res, target, who, msg, started, session);
    if (msg.method !== undefined && msg.id !== undefined) {
      if (session.mux.forward(session, msg, new LegacyReply(session, this.logDone(target, msg, started)))) this.usage.add(target.serverKind, target.serverRef);
      return;
    }
    if (msg.method !== undefined) session.mux.notifyServer(session, msg);
    else session.mux.answerServer(session, msg);
  }

  private expire() {
    const cutoff = Date.now() - this.d.config.GATEWAY_SESSION_IDLE_MS;
    for (const s of this.sessions.values()) {
      if (s.closed || s.mux.dead || (s.lastActive < cutoff && s.inflight.size === 0 && !s.hasOpenStream)) this.end(s);
      else s.prune();
    }
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Shutdown: sessions end, the last usage counts are written. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.stopWatchingKeys();
    for (const s of [...this.sessions.values()]) this.end(s);
    await this.usage.close();
  }
}
