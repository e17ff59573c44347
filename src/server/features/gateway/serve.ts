import type { IncomingMessage, ServerResponse } from "node:http";
import type { Bus } from "../../cluster/bus.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { KeyRevocations } from "../api-keys/revocations.js";
import type { Runner } from "../runtime/runner.js";
import type { Caller } from "./admission/access.js";
import type { OAuthPort } from "./admission/oauth-tokens.js";
import { COUNTED_HEADER, MOVED_HEADER } from "./forwarding.js";
import type { InFlight } from "./in-flight.js";
import { isPlayground, whenAnswered, type GatewayObserver } from "./observe.js";
import type { GatewayTarget, PinsPort } from "./repo.js";
import { Sessions } from "./sessions/sessions.js";
import { StatelessLane } from "./stateless/lane.js";
import { TargetExposures } from "./target-exposures.js";
import { GATEWAY_TEXT } from "./text.js";
import type { TransportHost } from "./transports/host.js";
import { legacyOpen, legacyPost } from "./transports/legacy-sse.js";
import { streamableDelete, streamableGet, streamablePost } from "./transports/streamable-http.js";
import type { UsageCounter } from "./usage.js";
import { rpcError } from "./wire/http.js";
import type { Onward, Route } from "./steps.js";

// The serving step (an all-in-one gateway's and a runner's): an admitted request reaches its
// transport's HTTP method (transports/), which opens, finds or ends the client's session
// (sessions/) or hands a 2026-07-28 request to the stateless lane (stateless/); the session's
// messages go to the server's channel through its Mux. docs/gateway.md walks one tools/call.

export interface ServeDeps {
  config: Config;
  db: Db;
  log: Logger;
  /** the deployments' MCP channels in this process: `channel(id)` once the server answered initialize, `runs(id)` while it runs or restarts */
  runner: Pick<Runner, "channel" | "runs">;
  /** a revoked key or OAuth grant ends the sessions opened with it */
  revocations: KeyRevocations;
  /** OAuth access tokens: an open session's token is checked again as it ages */
  oauth: Pick<OAuthPort, "verify">;
  /** the deployments' pinned definitions: read with each target, told of each listing */
  pins: PinsPort;
  /** where a change to what a deployment exposes is announced (TOPICS.exposure) */
  bus?: Pick<Bus, "subscribe" | "publish">;
  /** told of every answered request (request log, metrics, traces) */
  observer?: GatewayObserver;
  /** every request from start to end, a stream for as long as it is open: idle deployments sleep (features/deployments/sleep/idle.ts) */
  activity?: { begin(id: string): () => void };
}

export interface ServeParts {
  /** 'Total Usage' counts (usage.ts) */
  usage: UsageCounter;
  /** bytes of requests in flight: what an answered request gives back */
  inflight: InFlight;
  /** the admission's cache of proxy id -> deployment: a recorded listing makes it look again */
  forget(proxyId?: string): void;
  /**
   * A runner's: requests came from front gateways, which admitted the caller and count usage
   * (told by a header), and look a deployment up again when told it is not held here.
   */
  forwarded: boolean;
}

export class ServeStep implements TransportHost, Onward {
  readonly sessions: Sessions;
  readonly exposures: TargetExposures;
  /** the 2026-07-28 requests: no sessions (stateless/lane.ts) */
  readonly stateless: StatelessLane;
  readonly maxBodyBytes: number;

  constructor(
    private readonly d: ServeDeps,
    private readonly p: ServeParts,
  ) {
    this.maxBodyBytes = d.config.GATEWAY_MAX_BODY_BYTES;
    this.sessions = new Sessions(d);
    this.exposures = new TargetExposures({ log: d.log, pins: d.pins, bus: d.bus, forget: p.forget });
    this.stateless = new StatelessLane({
      mux: (t) => this.sessions.mux(t.id),
      unavailable: (t) => this.unavailable(t),
      exposure: (t) => this.exposures.of(t),
      done: (req, target, msg, started, bytes, client) => this.onDone(req, target, msg, started, bytes, client, "streamable"),
      count: (res, t) => this.count(res, t),
      watch: (h) => this.sessions.watch(h),
      requestTimeoutMs: d.config.GATEWAY_REQUEST_TIMEOUT_MS,
    });
  }

  /** The request on its transport: Streamable HTTP at /mcp, legacy HTTP+SSE at /sse and /messages. */
  pass(req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller, route: Route) {
    // What keeps a deployment awake: every request, a stream for as long as it is open.
    if (this.d.activity) res.once("close", this.d.activity.begin(target.id));
    const method = req.method ?? "GET";
    if (route.kind === "mcp") {
      if (method === "POST") return streamablePost(this, req, res, target, who, route.started);
      if (method === "GET") return streamableGet(this, req, res, target, who);
      if (method === "DELETE") return streamableDelete(this, req, res, target, who);
      return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "GET, POST, DELETE" });
    }
    if (route.kind === "sse") {
      if (method === "GET") return legacyOpen(this, req, res, target, who, route.proxyId);
      return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "GET" });
    }
    const sessionId = new URLSearchParams(route.query).get("sessionId") ?? "";
    if (method === "POST") return legacyPost(this, req, res, target, who, sessionId, route.started);
    return rpcError(res, 405, GATEWAY_TEXT.methodNotAllowed, { allow: "POST" });
  }

  /** An exposure changed: open sessions and stateless listeners are told to list again. */
  listsChanged(deploymentId: string): void {
    this.sessions.listsChanged(deploymentId);
    this.stateless.listsChanged(deploymentId);
  }

  /** 503: the server is starting or restarting (retry soon), or not running at all. */
  unavailable(target: GatewayTarget): { status: number; message: string; headers: Record<string, string> } {
    const starting = this.d.runner.runs(target.id);
    // A runner asked for a deployment it does not hold: the front gateway looks it up again.
    if (this.p.forwarded && !starting)
      return { status: 503, message: GATEWAY_TEXT.starting, headers: { "retry-after": "2", [MOVED_HEADER]: "1" } };
    return {
      status: 503,
      message: starting ? GATEWAY_TEXT.starting : GATEWAY_TEXT.notRunning,
      headers: starting ? { "retry-after": "5" } : {},
    };
  }

  budgetOf(req: IncomingMessage) {
    return this.p.inflight.of(req);
  }

  /** What happens once a request is answered (observe.ts); until then it stays in flight, its HTTP answer sent or not (legacy POSTs). */
  readonly onDone: TransportHost["onDone"] = (req, target, msg, started, bytesIn, client, transport) =>
    this.p.inflight.untilAnswered(
      req,
      whenAnswered(this.d.log, this.d.observer, { req, target, msg, started, bytesIn, client, transport }),
    );

  /**
   * One more for 'Total Usage'. A runner tells the gateway that forwarded the request (which
   * counts it, so a runner lost with counts not yet written loses none), unless its answer has
   * already gone out (the legacy transport's initialize), in which case it counts here.
   */
  count(res: ServerResponse, target: GatewayTarget) {
    // The owner's playground is not use (nor does a front gateway count it: no header says so).
    if (isPlayground(res.req)) return;
    const { usage } = this.p;
    if (!this.p.forwarded || res.headersSent) return usage.add(target.serverKind, target.serverRef, target.userId);
    res.setHeader(COUNTED_HEADER, "1");
    // The client (and so the gateway's connection) left before the answer: nobody else can count it.
    res.once("close", () => {
      if (!res.headersSent) usage.add(target.serverKind, target.serverRef, target.userId);
    });
  }

  start(): void {
    this.sessions.start();
  }

  close(): void {
    this.stateless.close();
    this.sessions.close();
  }
}
