import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Bus } from "../../cluster/bus.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { KeyRevocations } from "../api-keys/revocations.js";
import type { Runner } from "../runtime/runner.js";
import { BROWSER_CALLER, GatewayAccess, siteHosts, type BrowserSessions } from "./admission/access.js";
import { serveCustomDomain, type CustomDomains } from "./custom-domain.js";
import type { OAuthPort } from "./admission/oauth-tokens.js";
import { subscribe, TOPICS } from "../../cluster/topics.js";
import { COUNTED_HEADER, ForwardedAccess, Forwarder, MOVED_HEADER, WOKE_HEADER } from "./forwarding.js";
import { gatewayMode, type GatewayMode } from "./gateway-mode.js";
import { inFlightRefusal, rpcError } from "./wire/http.js";
import { InFlight, type BodyBudget } from "./in-flight.js";
import { RPC, type Msg } from "./protocol.js";
import { isPlayground, markPlayground, markWoke, whenAnswered, wokeMs, type GatewayObserver } from "./observe.js";
import type { GatewayTarget, PinsPort } from "./repo.js";
import { METADATA_PREFIX, ResourceMetadata } from "./resource-metadata.js";
import type { Session } from "./sessions/session.js";
import { StatelessLane } from "./stateless/lane.js";
import { Sessions } from "./sessions/sessions.js";
import { TargetExposures } from "./target-exposures.js";
import { GATEWAY_TEXT } from "./text.js";
import type { TransportHost } from "./transports/host.js";
import { legacyOpen, legacyPost } from "./transports/legacy-sse.js";
import { rateLimited } from "./transports/rate-limited.js";
import { streamableDelete, streamableGet, streamablePost } from "./transports/streamable-http.js";
import { UsageCounter } from "./usage.js";
import type { FairUse } from "./fair-use.js";

// The gateway: every running deployment at {PUBLIC_URL}/{proxy_id}/mcp (Streamable HTTP) and
// /{proxy_id}/sse + /{proxy_id}/messages (legacy HTTP+SSE), as docs/gateway.md describes, and
// each one's OAuth protected resource metadata. It sits in front of the web app on the same port
// as a plain Node handler: the hot path parses just enough JSON-RPC to route. This file is the
// gateway's construction and the routing of a request to its transport's HTTP method
// (transports/); who may connect is admission/access.ts, the open sessions sessions.ts, the
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
   * runner holding the deployment (cluster.ts). See gateway-mode.ts.
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
  /** wakes a sleeping deployment and resolves once it answers (features/deployments/sleep/waker.ts); absent: nothing sleeps */
  wake?: WakePort;
  /** the gateway that serves the sessions reports each request from start to end: idle deployments sleep (features/deployments/sleep/idle.ts) */
  activity?: { begin(id: string): () => void };
  /** custom domains (features/domains): where a Host that is not the site's leads */
  domains?: CustomDomains;
}

/** How a gateway wakes a sleeping deployment: resolves once it answers, or with why it cannot. */
export interface WakePort {
  wake(id: string): Promise<{ ok: true } | { ok: false; status: number; message: string; retryAfter?: number }>;
}

/** Statuses a request waits through (a sleeping deployment waking, or one starting after a wake): never a crash loop or a failure. */
const WAKING = new Set(["sleeping", "queued", "starting"]);

/** A front gateway has no channels of its own. */
const NO_RUNNER: Pick<Runner, "channel" | "runs"> = { channel: () => undefined, runs: () => false };

export class Gateway implements TransportHost {
  private readonly mode: GatewayMode;
  private readonly access: Pick<GatewayAccess, "admit" | "forget" | "refresh">;
  private readonly stopWatchingTools: () => void;
  readonly sessions: Sessions;
  private readonly metadata: ResourceMetadata;
  private readonly forwarder?: Forwarder;
  private readonly runner: Pick<Runner, "channel" | "runs">;
  readonly exposures: TargetExposures;
  /** the 2026-07-28 requests: no sessions (stateless/lane.ts) */
  readonly stateless: StatelessLane;
  readonly maxBodyBytes: number;
  readonly usage: UsageCounter;
  /** bytes of requests in flight, per deployment and per credential (GATEWAY_INFLIGHT_BYTES) */
  readonly inflight: InFlight;

  constructor(private readonly d: GatewayDeps) {
    this.mode = gatewayMode(d);
    this.runner = d.runner ?? NO_RUNNER;
    this.maxBodyBytes = d.config.GATEWAY_MAX_BODY_BYTES;
    this.inflight = new InFlight(d.config.GATEWAY_INFLIGHT_BYTES);
    if (this.mode === "runner") {
      this.access = new ForwardedAccess({ db: d.db, pins: d.pins, runner: this.runner });
    } else {
      const access = new GatewayAccess(d);
      this.access = access;
      if (this.mode === "front") {
        this.forwarder = new Forwarder({
          secret: d.clusterSecret!,
          log: d.log,
          forget: (p) => access.forget(p),
          count: (t) => this.usage.add(t.serverKind, t.serverRef, t.userId),
          maxBodyBytes: d.config.GATEWAY_MAX_BODY_BYTES,
          budgetOf: (req) => this.inflight.of(req),
        });
      }
    }
    this.metadata = new ResourceMetadata(d);
    this.sessions = new Sessions({ ...d, runner: this.runner });
    this.exposures = new TargetExposures({ log: d.log, pins: d.pins, bus: d.bus, forget: (p) => this.access.forget(p) });
    this.stateless = new StatelessLane({
      mux: (t) => this.sessions.mux(t.id),
      unavailable: (t) => this.unavailable(t),
      exposure: (t) => this.exposures.of(t),
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
    const routed: RequestListener = (req, res) => {
      const url = req.url ?? "/";
      // cheap test first: "/" + 32 hex digits + "/"
      if (url.length < 36 || url.charCodeAt(33) !== 47) {
        if (url.charCodeAt(1) === 46 && url.startsWith(METADATA_PREFIX)) return this.metadata.handle(req, res, url, next);
        return next(req, res);
      }
      const q = url.indexOf("?");
      const m = ROUTE.exec(q < 0 ? url : url.slice(0, q));
      if (!m) return next(req, res);
      this.handle(req, res, m[1]!, m[2]!, q < 0 ? "" : url.slice(q + 1)).catch((e: unknown) => this.failed(res, e));
    };
    if (!this.d.domains || this.mode === "runner") return routed;
    // Not one of the site's hosts: perhaps a custom domain (a front gateway's question; a runner's
    // gateway is reached by front gateways, with the path they rewrote). Anything else is routed as
    // before, where a gateway path refuses the Host.
    const site = siteHosts(this.d.config);
    const custom = { domains: this.d.domains, metadata: this.metadata, handle: this.handle.bind(this) };
    return (req, res) => {
      const host = req.headers.host;
      if (!host || site.has(host.toLowerCase())) return routed(req, res);
      serveCustomDomain(custom, req, res, host, routed).catch((e: unknown) => this.failed(res, e));
    };
  }

  private failed(res: ServerResponse, e: unknown): void {
    this.d.log.error({ err: e }, "gateway request failed");
    if (!res.headersSent) rpcError(res, 500, GATEWAY_TEXT.internal, {}, RPC.internal);
    else res.end();
  }

  private async handle(req: IncomingMessage, res: ServerResponse, proxyId: string, kind: string, query: string) {
    const started = performance.now();
    const admitted = await this.access.admit(req, res, proxyId, query);
    if (!admitted) return;
    const { who } = admitted;
    let target = admitted.target;
    if (who.keyHash.startsWith(BROWSER_CALLER)) markPlayground(req);
    const method = req.method ?? "GET";
    // Bytes in flight, by the gateway the client reached: a request that does not fit is refused before its body is read.
    const full =
      method === "POST" && this.mode !== "runner" ? this.inflight.admitPost(req, res, target.id, who.keyHash, this.maxBodyBytes) : null;
    if (full) return inFlightRefusal(res, full, this.inflight.capBytes);
    // Fair use, by the gateway the client reached (a runner's gateway was reached through one).
    if (this.d.fairUse && this.mode !== "runner" && method !== "DELETE") {
      const v = this.d.fairUse.check(target.id, target.userId, who.keyHash);
      const verdict = v instanceof Promise ? await v : v;
      if (!verdict.ok) return rateLimited(this, req, res, target, who, kind, query, verdict, started);
    }
    // A session ended by its client after the deployment fell asleep: it went with the process, and ending it wakes nothing.
    if (method === "DELETE" && target.status === "sleeping" && this.mode !== "runner")
      return rpcError(res, 404, GATEWAY_TEXT.sessionNotFound);
    // Asleep (or starting after a wake): woken, and the request waits for it rather than being refused.
    // (Sleeping with a channel still open: its process is being stopped and answers no more.)
    if (
      this.d.wake &&
      this.mode !== "runner" &&
      (target.status === "sleeping" || (WAKING.has(target.status) && !this.runner.channel(target.id)))
    ) {
      const woke = await this.wakeFor(req, res, target, proxyId);
      if (!woke) return;
      target = woke;
    }
    if (this.mode === "runner") {
      const w = Number(req.headers[WOKE_HEADER]);
      if (Number.isFinite(w) && w >= 0) markWoke(req, w);
    }
    // The serving side counts what keeps a deployment awake: every request, a stream for as long as it is open.
    if (this.d.activity && this.mode !== "front") res.once("close", this.d.activity.begin(target.id));
    if (this.forwarder) return this.forwarder.forward(req, res, target, who, proxyId, wokeMs(req));
    if (kind === "mcp") {
      if (method === "POST") return streamablePost(this, req, res, target, who, started);
      if (method === "GET") return streamableGet(this, req, res, target, who);
      if (method === "DELETE") return streamableDelete(this, req, res, target, who);
      return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "GET, POST, DELETE" });
    }
    if (kind === "sse") {
      if (method === "GET") return legacyOpen(this, req, res, target, who, proxyId);
      return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "GET" });
    }
    if (method === "POST") return legacyPost(this, req, res, target, who, new URLSearchParams(query).get("sessionId") ?? "", started);
    return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "POST" });
  }

  /** Wakes the request's deployment and waits for it; undefined when it cannot (answered already), else the target as it is now. */
  private async wakeFor(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, proxyId: string) {
    const began = performance.now();
    const r = await this.d.wake!.wake(target.id);
    if (!r.ok) {
      rpcError(res, r.status, r.message, r.retryAfter ? { "retry-after": String(r.retryAfter) } : {}, RPC.serverError);
      return undefined;
    }
    markWoke(req, Math.round(performance.now() - began));
    // Where it runs now (a front gateway forwards there).
    this.access.forget(proxyId);
    if (this.mode !== "front") return target;
    return (await this.access.refresh(proxyId)) ?? target;
  }

  /** 503: the server is starting or restarting (retry soon), or not running at all. */
  unavailable(target: GatewayTarget): { status: number; message: string; headers: Record<string, string> } {
    const starting = this.runner.runs(target.id);
    // A runner's gateway asked for a deployment it does not hold: the front gateway looks it up again.
    if (this.mode === "runner" && !starting)
      return { status: 503, message: GATEWAY_TEXT.starting, headers: { "retry-after": "2", [MOVED_HEADER]: "1" } };
    return {
      status: 503,
      message: starting ? GATEWAY_TEXT.starting : GATEWAY_TEXT.notRunning,
      headers: starting ? { "retry-after": "5" } : {},
    };
  }

  budgetOf(req: IncomingMessage): BodyBudget | undefined {
    return this.inflight.of(req);
  }

  /** What happens once a request is answered (observe.ts); until then it stays in flight, its HTTP answer sent or not (legacy POSTs). */
  onDone(
    req: IncomingMessage,
    target: GatewayTarget,
    msg: Msg,
    started: number,
    bytesIn: number,
    client: Session["client"] | undefined,
    transport: "streamable" | "sse",
  ) {
    return this.inflight.untilAnswered(
      req,
      whenAnswered(this.d.log, this.d.observer, { req, target, msg, started, bytesIn, client, transport }),
    );
  }

  /**
   * One more for 'Total Usage'. A runner's gateway tells the gateway that forwarded the request
   * (which counts it, so a runner lost with counts not yet written loses none), unless its answer
   * has already gone out (the legacy transport's initialize), in which case it counts here.
   */
  count(res: ServerResponse, target: GatewayTarget) {
    // The owner's playground is not use (nor does a front gateway count it: no header says so).
    if (isPlayground(res.req)) return;
    if (this.mode !== "runner" || res.headersSent) return this.usage.add(target.serverKind, target.serverRef, target.userId);
    res.setHeader(COUNTED_HEADER, "1");
    // The client (and so the gateway's connection) left before the answer: nobody else can count it.
    res.once("close", () => {
      if (!res.headersSent) this.usage.add(target.serverKind, target.serverRef, target.userId);
    });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Starts the background work: the sweep of idle sessions and the usage counts' flush (the platform's listen()). */
  start(): void {
    this.sessions.start();
    this.usage.start();
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
