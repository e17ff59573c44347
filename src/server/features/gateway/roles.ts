import type { Bus } from "../../cluster/bus.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { KeyRevocations } from "../api-keys/revocations.js";
import type { Runner } from "../runtime/runner.js";
import { GatewayAccess, type BrowserSessions } from "./admission/access.js";
import type { OAuthPort } from "./admission/oauth-tokens.js";
import type { CustomDomains } from "./custom-domain.js";
import type { FairUse } from "./fair-use.js";
import { ForwardedAccess, Forwarder } from "./forwarding.js";
import { FrontStep, type WakePort } from "./front.js";
import { Gateway } from "./gateway.js";
import { InFlight } from "./in-flight.js";
import type { GatewayObserver } from "./observe.js";
import type { PinsPort } from "./repo.js";
import { ResourceMetadata } from "./resource-metadata.js";
import { ServeStep } from "./serve.js";
import { UsageCounter } from "./usage.js";

// A gateway's three roles (docs/operations.md), each with the steps it takes (steps.ts):
//   front       admit -> front step -> forward to the runner holding the deployment (cluster.ts)
//   runner      trust the front's admission (cluster secret) -> serve
//   all-in-one  admit -> front step -> serve, in the process that runs the servers
// and what each is given: every gateway the common part, a gateway the client reaches what it
// admits and fronts with, a gateway that serves sessions the runner's channels.

/** What every gateway is given. */
export interface GatewayCommon {
  config: Config;
  db: Db;
  log: Logger;
  /** the deployments' pinned definitions: read with each target, told of each listing (features/deployments writes them) */
  pins: PinsPort;
  /** where a change to what a deployment exposes is announced (TOPICS.exposure) */
  bus?: Pick<Bus, "subscribe" | "publish">;
  /** told of every answered request and of sessions opening and ending (request log, metrics, traces) */
  observer?: GatewayObserver;
  /** a catalogue entry's popularity changed (usage.ts): the directory's caches go */
  popularityChanged?: () => void;
  /** a revoked key or OAuth grant ends what was opened with it */
  revocations: KeyRevocations;
  /** OAuth access tokens: the authorization server's grants */
  oauth: OAuthPort;
}

/** What the gateway a client reaches is given: who may call, and how it is held to its plan. */
export interface ReachedDeps {
  /** the web app's sign-in sessions: the playground's requests carry the page's cookie instead of a key */
  browserSessions?: BrowserSessions;
  /** fair use: requests a minute per deployment and per credential, by plan (fair-use.ts) */
  fairUse?: Pick<FairUse, "check">;
  /** wakes a sleeping deployment and resolves once it answers (features/deployments/sleep/waker.ts); absent: nothing sleeps */
  wake?: WakePort;
  /** custom domains (features/domains): where a Host that is not the site's leads */
  domains?: CustomDomains;
}

/** What a gateway that serves sessions is given. */
export interface ServingDeps {
  /** the deployments' MCP channels in this process */
  runner: Pick<Runner, "channel" | "runs">;
  /** each request from start to end: idle deployments sleep (features/deployments/sleep/idle.ts) */
  activity?: { begin(id: string): () => void };
}

export type FrontGatewayDeps = GatewayCommon & ReachedDeps & { /** CLUSTER_SECRET, sent to runners */ clusterSecret: string };
export type RunnerGatewayDeps = GatewayCommon & ServingDeps;
export type AllInOneGatewayDeps = GatewayCommon & ReachedDeps & ServingDeps;

function shared(d: GatewayCommon) {
  return {
    config: d.config,
    log: d.log,
    bus: d.bus,
    metadata: new ResourceMetadata(d),
    usage: new UsageCounter(d.db, d.log, d.config.USAGE_FLUSH_MS, d.popularityChanged),
    inflight: new InFlight(d.config.GATEWAY_INFLIGHT_BYTES),
  };
}

/** Admits requests and forwards them to the runner holding the deployment, where the sessions live. */
export function frontGateway(d: FrontGatewayDeps): Gateway {
  const s = shared(d);
  const admission = new GatewayAccess(d);
  const onward = new Forwarder({
    secret: d.clusterSecret,
    log: d.log,
    forget: (p) => admission.forget(p),
    count: (t) => s.usage.add(t.serverKind, t.serverRef, t.userId),
    maxBodyBytes: d.config.GATEWAY_MAX_BODY_BYTES,
    budgetOf: (req) => s.inflight.of(req),
  });
  const front = new FrontStep(d, {
    admission,
    inflight: s.inflight,
    maxBodyBytes: d.config.GATEWAY_MAX_BODY_BYTES,
    answersHere: () => false,
  });
  return new Gateway({ ...s, admission, front, onward, domains: d.domains });
}

/** Serves what front gateways forwarded, whose callers they admitted (the cluster secret says so). */
export function runnerGateway(d: RunnerGatewayDeps): Gateway {
  const s = shared(d);
  const admission = new ForwardedAccess(d);
  const serve = new ServeStep(d, { usage: s.usage, inflight: s.inflight, forget: (p) => admission.forget(p), forwarded: true });
  return new Gateway({ ...s, admission, onward: serve, serve });
}

/** Admits, fronts and serves, in the process that runs the servers. */
export function allInOneGateway(d: AllInOneGatewayDeps): Gateway {
  const s = shared(d);
  const admission = new GatewayAccess(d);
  const serve = new ServeStep(d, { usage: s.usage, inflight: s.inflight, forget: (p) => admission.forget(p), forwarded: false });
  const front = new FrontStep(d, {
    admission,
    inflight: s.inflight,
    maxBodyBytes: d.config.GATEWAY_MAX_BODY_BYTES,
    answersHere: (id) => d.runner.channel(id) !== undefined,
    legacySession: (sessionId, userId, deploymentId) => serve.sessions.find(sessionId, userId, deploymentId, true),
  });
  return new Gateway({ ...s, admission, front, onward: serve, serve, domains: d.domains });
}
