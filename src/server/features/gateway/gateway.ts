import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Bus } from "../../cluster/bus.js";
import type { Config } from "../../config.js";
import type { Logger } from "../../log.js";
import { BROWSER_CALLER, siteHosts } from "./admission/access.js";
import { serveCustomDomain, type CustomDomains } from "./custom-domain.js";
import { subscribe, TOPICS } from "../../cluster/topics.js";
import type { FrontStep } from "./front.js";
import type { InFlight } from "./in-flight.js";
import { RPC } from "./protocol.js";
import { markMember, markPlayground } from "./observe.js";
import { METADATA_PREFIX, type ResourceMetadata } from "./resource-metadata.js";
import type { ServeStep } from "./serve.js";
import type { Admission, Onward, Route } from "./steps.js";
import { GATEWAY_TEXT } from "./text.js";
import type { UsageCounter } from "./usage.js";
import { rpcError } from "./wire/http.js";

// The gateway: every running deployment at {PUBLIC_URL}/{proxy_id}/mcp (Streamable HTTP) and
// /{proxy_id}/sse + /{proxy_id}/messages (legacy HTTP+SSE), as docs/gateway.md describes, and
// each one's OAuth protected resource metadata. It sits in front of the web app on the same port
// as a plain Node handler: the hot path parses just enough JSON-RPC to route. This file routes a
// request to its deployment and takes it through the gateway's steps (steps.ts): admission, the
// front step (front.ts), onward (serve.ts or forwarding.ts). Which steps a gateway has is its role,
// chosen where it is made (roles.ts).

export { GATEWAY_TEXT };

const ROUTE = /^\/([0-9a-f]{32})\/(mcp|sse|messages)\/?$/;

/** What one gateway is made of (roles.ts puts the parts together for each role). */
export interface GatewayParts {
  config: Config;
  log: Logger;
  admission: Admission;
  /** bytes in flight, fair use, waking: the gateway the client reached (absent on a runner, whose requests came through one) */
  front?: FrontStep;
  /** served here (serve.ts) or forwarded to the runner holding the deployment (forwarding.ts) */
  onward: Onward;
  /** the sessions served here, when they are (the metrics count them) */
  serve?: ServeStep;
  metadata: ResourceMetadata;
  /** custom domains (features/domains): where a Host that is not the site's leads (absent on a runner: front gateways reach it with the path they rewrote) */
  domains?: CustomDomains;
  /** where a change to what a deployment exposes (its owner's tool selection, its pinned definitions) is announced (TOPICS.exposure) */
  bus?: Pick<Bus, "subscribe" | "publish">;
  usage: UsageCounter;
  inflight: InFlight;
}

/** What the metrics read of a gateway (observability/metrics.ts), summed over a process's gateways. */
export interface GatewayCounts {
  /** MCP sessions open */
  sessions: number;
  /** bytes written to clients' event streams and not yet taken by them */
  streamBytesHeld: number;
  /** client event streams closed for not keeping up, since start */
  streamsClosedSlow: number;
  /** messages dropped (a server's requests beyond the ones waiting, stray answers), since start */
  messagesDropped: number;
}

export class Gateway {
  private readonly stopWatchingTools: () => void;
  /** 'Total Usage': exactly once per request, by the gateway the client reached (a runner says so in a header) */
  readonly usage: UsageCounter;
  /** bytes of requests in flight, per deployment and per credential (GATEWAY_INFLIGHT_BYTES) */
  readonly inflight: InFlight;

  constructor(private readonly p: GatewayParts) {
    this.usage = p.usage;
    this.inflight = p.inflight;
    // An owner hid or showed tools, or approved a changed definition (or a listing pinned or
    // recorded one): the next request sees the new rules, open sessions are told to list again.
    this.stopWatchingTools =
      (p.bus &&
        subscribe(p.bus, TOPICS.exposure, (changed) => {
          // A gap in the bus (RESYNC): whatever changed meanwhile is looked up again.
          if (!changed) return p.admission.forget();
          p.admission.forget(changed.proxyId);
          // A listing recorded (quiet) changes nothing a session was shown: only the lookups go.
          if (!changed.quiet) p.serve?.listsChanged(changed.id);
        })) ||
      (() => {});
  }

  /** Node request listener: answers gateway paths, hands everything else to `next`. */
  handler(next: RequestListener): RequestListener {
    const routed: RequestListener = (req, res) => {
      const url = req.url ?? "/";
      // cheap test first: "/" + 32 hex digits + "/"
      if (url.length < 36 || url.charCodeAt(33) !== 47) {
        if (url.charCodeAt(1) === 46 && url.startsWith(METADATA_PREFIX)) return this.p.metadata.handle(req, res, url, next);
        return next(req, res);
      }
      const q = url.indexOf("?");
      const m = ROUTE.exec(q < 0 ? url : url.slice(0, q));
      if (!m) return next(req, res);
      this.handle(req, res, m[1]!, m[2]!, q < 0 ? "" : url.slice(q + 1)).catch((e: unknown) => this.failed(res, e));
    };
    if (!this.p.domains) return routed;
    // Not one of the site's hosts: perhaps a custom domain. Anything else is routed as before,
    // where a gateway path refuses the Host.
    const site = siteHosts(this.p.config);
    const custom = { domains: this.p.domains, metadata: this.p.metadata, handle: this.handle.bind(this) };
    return (req, res) => {
      const host = req.headers.host;
      if (!host || site.has(host.toLowerCase())) return routed(req, res);
      serveCustomDomain(custom, req, res, host, routed).catch((e: unknown) => this.failed(res, e));
    };
  }

  private failed(res: ServerResponse, e: unknown): void {
    this.p.log.error({ err: e }, "gateway request failed");
    if (!res.headersSent) rpcError(res, 500, GATEWAY_TEXT.internal, {}, RPC.internal);
    else res.end();
  }

  /** One request through the steps: admitted, past the front step, onward. */
  private async handle(req: IncomingMessage, res: ServerResponse, proxyId: string, kind: string, query: string) {
    const route: Route = { proxyId, kind: kind as Route["kind"], query, started: performance.now() };
    const admitted = await this.p.admission.admit(req, res, proxyId, query);
    if (!admitted) return;
    const { who } = admitted;
    if (who.keyHash.startsWith(BROWSER_CALLER)) markPlayground(req);
    if (who.via !== undefined) markMember(req, who.userId);
    const target = this.p.front ? await this.p.front.pass(req, res, admitted.target, who, route) : admitted.target;
    if (target) return this.p.onward.pass(req, res, target, who, route);
  }

  get sessionCount(): number {
    return this.p.serve?.sessions.size ?? 0;
  }

  counts(): GatewayCounts {
    const totals = this.p.serve?.sessions.totals;
    return {
      sessions: this.sessionCount,
      streamBytesHeld: totals?.held ?? 0,
      streamsClosedSlow: totals?.stalled ?? 0,
      messagesDropped: totals?.dropped ?? 0,
    };
  }

  /** Starts the background work: the sweep of idle sessions and the usage counts' flush (the platform's listen()). */
  start(): void {
    this.p.serve?.start();
    this.usage.start();
  }

  /** Shutdown: sessions end, the last usage counts are written. */
  async close(): Promise<void> {
    this.stopWatchingTools();
    this.p.onward.close();
    await this.usage.close();
  }
}

/** A process's gateways together, for the metrics. */
export function totalCounts(gateways: readonly (Gateway | undefined)[]): GatewayCounts {
  const sum: GatewayCounts = { sessions: 0, streamBytesHeld: 0, streamsClosedSlow: 0, messagesDropped: 0 };
  for (const g of gateways) {
    if (!g) continue;
    const c = g.counts();
    sum.sessions += c.sessions;
    sum.streamBytesHeld += c.streamBytesHeld;
    sum.streamsClosedSlow += c.streamsClosedSlow;
    sum.messagesDropped += c.messagesDropped;
  }
  return sum;
}
