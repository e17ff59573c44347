import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { apiKeyInQuery, hashKey, KEY_PATTERN, keyGeneration, viewerFromApiKey } from "../publishers/api-keys.js";
import type { Child } from "../runtime/child.js";
import type { Supervisor } from "../runtime/supervisor.js";
import { RPC, Mux } from "./mux.js";
import { findDeploymentByProxy, type GatewayTarget } from "./repo.js";
import { HttpReply, LegacyReply, Session, type Msg } from "./session.js";
import { UsageCounter } from "./usage.js";

// The gateway: every running deployment at {PUBLIC_URL}/{proxy_id}/mcp (Streamable HTTP) and
// /{proxy_id}/sse + /{proxy_id}/messages (legacy HTTP+SSE). It sits in front of the web app on the
// same port as a plain Node handler: the hot path parses just enough JSON-RPC to route.

const ROUTE = /^\/([0-9a-f]{32})\/(mcp|sse|messages)\/?$/;
export const SUPPORTED_VERSIONS = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
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
  badVersion: (v: string) => `Bad Request: unsupported MCP-Protocol-Version ${v} (supported: ${[...SUPPORTED_VERSIONS].join(", ")})`,
  conflict: "Conflict: this session already has an open SSE stream",
  starting: "The MCP server is starting or restarting; try again in a few seconds",
  notRunning: "The MCP server is not running; deploy it again from its page",
} as const;

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
    this.allowedHosts = new Set([...d.config.allowedOrigins].map((o) => new URL(o).host.toLowerCase()));
    // The machine itself (health checks, a local reverse proxy) on the port the app listens on.
    for (const h of ["localhost", "127.0.0.1", "[::1]"]) this.allowedHosts.add(`${h}:${d.config.PORT}`);
    this.usage = new UsageCounter(d.db, d.log, d.config.USAGE_FLUSH_MS);
    const idle = d.config.GATEWAY_SESSION_IDLE_MS;
    this.sweeper = setInterval(() => this.expire(), Math.min(60_000, Math.max(250, idle / 4))).unref();
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
    const [userId, target] = await Promise.all([this.userOf(key), this.target(proxyId)]);
    if (!userId) return rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid);
    // Another user's key: the deployment's existence is not revealed.
    if (!target || target.userId !== userId) return rpcError(res, 404, GATEWAY_TEXT.notFound);

    const method = req.method ?? "GET";
    if (kind === "mcp") {
      if (method === "POST") return this.post(req, res, target, userId, started);
      if (method === "GET") return this.get(req, res, target, userId);
      if (method === "DELETE") return this.delete(req, res, target, userId);
      return rpcError(res, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" });
    }
    if (kind === "sse") {
      if (method === "GET") return this.legacyOpen(req, res, target, userId, proxyId);
      return rpcError(res, 405, "Method Not Allowed", { allow: "GET" });
    }
    if (method === "POST") return this.legacyPost(req, res, target, userId, params.get("sessionId") ?? "", started);
    return rpcError(res, 405, "Method Not Allowed", { allow: "POST" });
  }

  /** The key's owner: checked on every request, against the database at least every KEY_TTL_MS. */
  private async userOf(key: string): Promise<string | undefined> {
    const hash = hashKey(key);
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
      mux = new Mux(child, (why) => this.d.log.warn({ deployment: target.id, why }, "gateway dropped a client message"));
      this.muxes.set(child, mux);
    }
    return mux;
  }

  private unavailable(res: ServerResponse, target: GatewayTarget, id: Msg["id"] = null) {
    const starting = this.d.supervisor.supervises(target.id);
    rpcError(res, 503, starting ? GATEWAY_TEXT.starting : GATEWAY_TEXT.notRunning, starting ? { "retry-after": "5" } : {}, RPC.serverError, id);
  }

  private session(res: ServerResponse, id: string | undefined, target: GatewayTarget, userId: string, legacy = false): Session | undefined {
    if (!id) return void rpcError(res, 400, GATEWAY_TEXT.sessionRequired);
    const s = this.sessions.get(id);
    if (s && (s.closed || s.mux.dead)) {
      s.close();
      this.sessions.delete(id);
    }
    // A session presented with another user's key, or on another deployment, does not exist for them.
    if (!s || s.closed || s.userId !== userId || s.deploymentId !== target.id || s.legacy !== legacy) {
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
    const tool = msg.method === "tools/call" && typeof msg.params?.name === "string" ? msg.params.name : undefined;
    return (answer: Msg) => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      this.d.log.info({ deployment: target.id, method: msg.method, tool, status: answer.error ? "error" : "ok", ms }, "mcp request");
    };
  }

  private async post(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, userId: string, started: number) {
    if (!(accepts(req.headers.accept, "application/json") && accepts(req.headers.accept, "text/event-stream"))) return rpcError(res, 406, GATEWAY_TEXT.notAcceptable);
    if (!req.headers["content-type"]?.toLowerCase().startsWith("application/json")) return rpcError(res, 415, GATEWAY_TEXT.unsupportedMedia);
    const msg = await this.body(req, res);
    if (!msg) return;
    if (msg.method === "initialize" && msg.id !== undefined) return this.initialize(res, target, userId, msg, false, started);
    const session = this.session(res, req.headers["mcp-session-id"] as string | undefined, target, userId);
    if (!session) return;
    const version = req.headers["mcp-protocol-version"] as string | undefined;
    if (version !== undefined && !SUPPORTED_VERSIONS.has(version)) return rpcError(res, 400, GATEWAY_TEXT.badVersion(version));
    if (msg.method !== undefined && msg.id !== undefined) {
      this.usage.add(target.serverKind, target.serverRef);
      return session.mux.forward(session, msg, new HttpReply(res, session, this.logDone(target, msg, started)));
    }
    if (msg.method !== undefined) session.mux.notifyServer(session, msg);
    else session.mux.answerServer(session, msg);
    res.writeHead(202).end();
  }

  /** initialize: a new session, answered from the server's cached result for that protocol version. */
  private async initialize(res: ServerResponse, target: GatewayTarget, userId: string, msg: Msg, legacy: boolean, started: number, existing?: Session) {
    const mux = this.mux(target);
    if (!mux) {
      if (existing) return existing.notify({ jsonrpc: "2.0", id: msg.id!, error: { code: RPC.serverError, message: GATEWAY_TEXT.starting } });
      return this.unavailable(res, target, msg.id);
    }
    let answer: Msg;
    try {
      answer = await mux.initialize(msg.params);
    } catch (e) {
      answer = { jsonrpc: "2.0", error: { code: RPC.serverError, message: (e as Error).message } };
    }
    const reply: Msg = { jsonrpc: "2.0", id: msg.id! };
    if (answer.error) reply.error = answer.error;
    else reply.result = answer.result;
    this.usage.add(target.serverKind, target.serverRef);
    this.logDone(target, msg, started)(reply);
    const session = existing ?? new Session(userId, target.id, mux, legacy);
    if (!answer.error) {
      const result = answer.result as { protocolVersion?: string } | undefined;
      session.protocolVersion = result?.protocolVersion ?? session.protocolVersion;
      session.clientCapabilities = (msg.params?.capabilities as Record<string, unknown> | undefined) ?? {};
      if (!existing) {
        mux.attach(session);
        this.sessions.set(session.id, session);
      }
    }
    if (existing) return existing.notify(reply);
    const body = JSON.stringify(reply);
    const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
    if (!answer.error) headers["mcp-session-id"] = session.id;
    res.writeHead(200, headers).end(body);
  }

  private get(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, userId: string) {
    if (!accepts(req.headers.accept, "text/event-stream")) return rpcError(res, 406, GATEWAY_TEXT.notAcceptableSse);
    const session = this.session(res, req.headers["mcp-session-id"] as string | undefined, target, userId);
    if (!session) return;
    const last = req.headers["last-event-id"] as string | undefined;
    if (last && session.resume(last, res)) return;
    if (session.standalone?.attached) return rpcError(res, 409, GATEWAY_TEXT.conflict);
    session.openStandalone(res);
  }

  private delete(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, userId: string) {
    const session = this.session(res, req.headers["mcp-session-id"] as string | undefined, target, userId);
    if (!session) return;
    this.end(session);
    res.writeHead(200).end();
  }

  private end(session: Session) {
    session.close();
    this.sessions.delete(session.id);
  }

  /** Legacy HTTP+SSE: the stream is the session; the endpoint event names where to POST. */
  private legacyOpen(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, userId: string, proxyId: string) {
    const mux = this.mux(target);
    if (!mux) return this.unavailable(res, target);
    const session = new Session(userId, target.id, mux, true);
    session.protocolVersion = "2024-11-05";
    mux.attach(session);
    this.sessions.set(session.id, session);
    session.openStandalone(res).writeRaw(`event: endpoint\ndata: /${proxyId}/messages?sessionId=${session.id}\n\n`);
    res.on("close", () => this.end(session));
  }

  private async legacyPost(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, userId: string, sessionId: string, started: number) {
    const session = this.session(res, sessionId, target, userId, true);
    if (!session) return;
    const msg = await this.body(req, res);
    if (!msg) return;
    res.writeHead(202).end("Accepted");
    if (msg.method === "initialize" && msg.id !== undefined) return this.initialize(res, target, userId, msg, true, started, session);
    if (msg.method !== undefined && msg.id !== undefined) {
      this.usage.add(target.serverKind, target.serverRef);
      return session.mux.forward(session, msg, new LegacyReply(session, this.logDone(target, msg, started)));
    }
    if (msg.method !== undefined) session.mux.notifyServer(session, msg);
    else session.mux.answerServer(session, msg);
  }

  private expire() {
    const cutoff = Date.now() - this.d.config.GATEWAY_SESSION_IDLE_MS;
    for (const s of this.sessions.values()) {
      if (s.closed || s.mux.dead || (s.lastActive < cutoff && s.inflight.size === 0 && !s.hasOpenStream)) this.end(s);
    }
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Shutdown: sessions end, the last usage counts are written. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const s of [...this.sessions.values()]) this.end(s);
    await this.usage.close();
  }
}
