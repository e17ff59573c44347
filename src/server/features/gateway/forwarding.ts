import { createHash, timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { Runner } from "../runtime/runner.js";
import type { Caller } from "./admission/access.js";
import type { BodyBudget } from "./in-flight.js";
import { RPC } from "./protocol.js";
import { inFlightRefusal, rpcError } from "./wire/http.js";
import { TargetCache } from "./admission/targets.js";
import type { GatewayTarget, PinsPort } from "./repo.js";
import { markWoke, wokeMs } from "./observe.js";
import type { Onward, Route } from "./steps.js";
import { GATEWAY_TEXT } from "./text.js";

// Several machines (docs/operations.md): a client's MCP session lives with the runner that holds
// the server's process. Any gateway admits the request (Host, Origin, the caller's credential, the
// deployment) and forwards it, as it came, to that runner over a kept-alive connection that
// carries the cluster secret and who the caller is. The runner's gateway trusts that identity only
// with the secret, and serves the session exactly as a single process would. No stickiness is
// needed in front: every gateway reaches every session.

export const CLUSTER_HEADER = "x-switchboard-cluster";
const CALLER_HEADER = "x-switchboard-caller";
/** a front gateway's note on a forwarded request: it waited this many ms for the deployment to wake (the request log's marker) */
export const WOKE_HEADER = "x-switchboard-woke";
/** a runner's answer: it does not hold this deployment (any more); the gateway looks it up again */
export const MOVED_HEADER = "x-switchboard-moved";
/** a runner's answer: the request reached the server and counts once towards 'Total Usage' (the forwarding gateway counts it) */
export const COUNTED_HEADER = "x-switchboard-counted";

const digest = (b: Buffer) => createHash("sha256").update(b).digest();

/**
 * The cluster secret, compared in constant time as fixed-length digests of the header's raw
 * bytes: any length and any byte (latin1 included) is just a wrong secret, never an exception.
 */
export function clusterAuthorized(req: IncomingMessage, secret: string): boolean {
  const got = req.headers[CLUSTER_HEADER];
  if (typeof got !== "string") return false;
  return timingSafeEqual(digest(Buffer.from(got, "latin1")), secretDigest(secret));
}

/** The secret's own digest, once per secret rather than once per forwarded request. */
let known: { secret: string; digest: Buffer } | undefined;
function secretDigest(secret: string): Buffer {
  if (known?.secret !== secret) known = { secret, digest: digest(Buffer.from(secret, "utf8")) };
  return known.digest;
}

/** Client request headers a runner needs; anything else (cookies, the credential itself) stays at the gateway. */
const PASS = [
  "accept",
  "content-type",
  "content-length",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "last-event-id",
  "user-agent",
];
/** bodies up to this size are forwarded whole, in one write; larger ones and streams are piped */
const SMALL_BODY = 64 * 1024;
/** Hop-by-hop headers that belong to one connection, never forwarded. */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade", MOVED_HEADER, COUNTED_HEADER]);

export interface ForwarderDeps {
  secret: string;
  log: Logger;
  /** the gateway's cache of proxy id -> deployment: a runner out of reach or without it makes it look again */
  forget(proxyId: string): void;
  /** one more for the deployment's server's 'Total Usage' */
  count(target: GatewayTarget): void;
  /** GATEWAY_MAX_BODY_BYTES: a body piped without a declared size is held to it here, as the runner would */
  maxBodyBytes: number;
  /** what an admitted request's body without a declared size counts against (in-flight.ts) */
  budgetOf(req: IncomingMessage): BodyBudget | undefined;
}

/** The front gateway's half: forwards an admitted request to the runner holding the deployment. */
export class Forwarder implements Onward {
  /** one kept-alive connection pool per runner address */
  private readonly runners = new Map<string, { hostname: string; port: string; agent: http.Agent }>();

  constructor(private readonly d: ForwarderDeps) {}

  /** The admitted request, as it came, to the runner holding the deployment. */
  pass(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, route: Pick<Route, "proxyId">): void {
    const { proxyId } = route;
    const woke = wokeMs(req);
    if (!target.runnerUrl) return rpcError(res, 503, GATEWAY_TEXT.starting, { "retry-after": "5" });
    const to = this.runner(target.runnerUrl);
    const headers: http.OutgoingHttpHeaders = { [CLUSTER_HEADER]: this.d.secret, [CALLER_HEADER]: encodeCaller(who) };
    // The request waited for the deployment to wake here: the runner's request log says so.
    if (woke !== undefined) headers[WOKE_HEADER] = String(woke);
    for (const h of PASS) {
      const v = req.headers[h];
      if (v !== undefined) headers[h] = v;
    }
    let up: http.ClientRequest;
    try {
      up = http.request({ hostname: to.hostname, port: to.port, method: req.method, path: req.url, headers, agent: to.agent });
    } catch {
      // A header value Node reads in but will not send on: the client's request, not the platform, is wrong.
      return rpcError(res, 400, GATEWAY_TEXT.invalid);
    }
    up.setNoDelay(true);
    up.on("response", (ur) => {
      if (ur.headers[MOVED_HEADER]) this.d.forget(proxyId);
      if (ur.headers[COUNTED_HEADER]) this.d.count(target);
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(ur.headers)) if (!HOP.has(k) && v !== undefined) out[k] = v;
      const status = ur.statusCode ?? 502;
      ur.on("error", () => res.destroy());
      const length = Number(ur.headers["content-length"] ?? NaN);
      // A JSON answer of known, modest size goes out in one write, headers and body together.
      if (length >= 0 && length <= SMALL_BODY) {
        const chunks: Buffer[] = [];
        ur.on("data", (c: Buffer) => chunks.push(c));
        ur.on("end", () => res.writeHead(status, out).end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
        return;
      }
      res.writeHead(status, out);
      // Server-sent events must not wait in a buffer.
      if (String(ur.headers["content-type"] ?? "").startsWith("text/event-stream")) res.flushHeaders();
      ur.pipe(res);
    });
    let refused = false;
    up.on("error", (e) => {
      if (refused) return;
      this.d.forget(proxyId);
      this.d.log.warn({ err: e, deployment: target.id, runner: target.runnerUrl }, "could not reach the deployment's runner");
      if (!res.headersSent) rpcError(res, 503, GATEWAY_TEXT.starting, { "retry-after": "5" });
      else res.destroy();
    });
    // The client left (an SSE stream closed): the runner must see it leave too.
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    const declared = Number(req.headers["content-length"] ?? NaN);
    if (req.method !== "POST") return void up.end();
    if (declared > SMALL_BODY) return void req.pipe(up);
    if (!(declared >= 0)) {
      // No declared size: counted as it arrives, against the body limit and the bytes in flight, as the runner cannot.
      const budget = this.d.budgetOf(req);
      let size = 0;
      req.on("data", (c: Buffer) => {
        if (refused) return;
        size += c.length;
        const full = budget?.grow(c.length) ?? null;
        if (size <= this.d.maxBodyBytes && !full) return;
        refused = true;
        budget?.end();
        req.unpipe(up);
        up.destroy();
        req.resume();
        if (res.headersSent) return void res.destroy();
        if (full) inFlightRefusal(res, full, budget!.capBytes);
        else rpcError(res, 413, GATEWAY_TEXT.tooLarge, {}, RPC.invalidRequest);
      });
      return void req.pipe(up);
    }
    // A small request body is read first, so headers and body leave in one write.
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => up.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on("error", () => up.destroy());
  }

  private runner(url: string): { hostname: string; port: string; agent: http.Agent } {
    let r = this.runners.get(url);
    if (!r) {
      const u = new URL(url);
      r = {
        hostname: u.hostname,
        port: u.port || "80",
        agent: new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: Infinity, maxFreeSockets: 256, scheduling: "lifo" }),
      };
      this.runners.set(url, r);
    }
    return r;
  }

  close(): void {
    for (const r of this.runners.values()) r.agent.destroy();
    this.runners.clear();
  }
}

function encodeCaller(who: Caller): string {
  return Buffer.from(JSON.stringify({ u: who.userId, k: who.keyHash, t: who.token, s: who.signIn, e: who.expiresAt, v: who.via })).toString(
    "base64url",
  );
}

function decodeCaller(v: string | string[] | undefined): Caller | undefined {
  if (typeof v !== "string" || v.length > 4096) return undefined;
  try {
    const c = JSON.parse(Buffer.from(v, "base64url").toString("utf8")) as {
      u?: unknown;
      k?: unknown;
      t?: unknown;
      s?: unknown;
      e?: unknown;
      v?: unknown;
    };
    if (
      typeof c.u !== "string" ||
      typeof c.k !== "string" ||
      (c.t !== undefined && typeof c.t !== "string") ||
      (c.s !== undefined && typeof c.s !== "string")
    )
      return undefined;
    const who: Caller = { userId: c.u, keyHash: c.k };
    if (c.t !== undefined) who.token = c.t as string;
    if (c.s !== undefined) who.signIn = c.s as string;
    if (typeof c.e === "number" && Number.isFinite(c.e)) who.expiresAt = c.e;
    if (typeof c.v === "string") who.via = c.v;
    return who;
  } catch {
    return undefined;
  }
}

/**
 * The runner's half: the caller a gateway admitted, trusted because the request carries the
 * cluster secret (the runner's server checks it before anything else). The deployment must be
 * the caller's and held here; otherwise the answer says it moved, and the gateway looks again.
 */
export class ForwardedAccess {
  private readonly targets: TargetCache;

  constructor(d: { db: Db; pins: Pick<PinsPort, "review">; runner: Pick<Runner, "runs"> }) {
    this.targets = new TargetCache({ db: d.db, pins: d.pins });
  }

  refresh(proxyId: string): Promise<GatewayTarget | undefined> {
    return this.targets.fetch(proxyId);
  }

  forget(proxyId?: string): void {
    this.targets.forget(proxyId);
  }

  async admit(req: IncomingMessage, res: ServerResponse, proxyId: string): Promise<{ target: GatewayTarget; who: Caller } | undefined> {
    const who = decodeCaller(req.headers[CALLER_HEADER]);
    if (!who) return void rpcError(res, 400, GATEWAY_TEXT.invalid);
    // The front gateway waited for the deployment to wake: the request log says so here.
    const w = Number(req.headers[WOKE_HEADER]);
    if (Number.isFinite(w) && w >= 0) markWoke(req, w);
    const target = this.targets.cached(proxyId) ?? (await this.targets.fetch(proxyId));
    if (!target) return void rpcError(res, 404, GATEWAY_TEXT.notFound, { [MOVED_HEADER]: "1" });
    // The front gateway checked the caller's membership when it reached an organisation's deployment.
    if (target.userId !== who.userId && target.userId !== who.via) return void rpcError(res, 404, GATEWAY_TEXT.notFound);
    return { target, who };
  }
}
