import type { Bus } from "./cluster/bus.js";
import type { Config } from "./config.js";
import type { Database } from "./db/client.js";
import { planOf, proUserIds } from "./features/billing/plan.js";
import { invalidateCatalog } from "./features/catalog/cache.js";
import { loadReview, recordListing, type PinOwner } from "./features/deployments/definitions/definitions-repo.js";
import type { Definition } from "./features/deployments/definitions/definitions.js";
import { FairUse } from "./features/gateway/fair-use.js";
import { allInOneGateway, frontGateway, runnerGateway, type Gateway, type WakePort } from "./features/gateway/index.js";
import { observers, type GatewayObserver } from "./features/gateway/observe.js";
import { touchGrant, verifyAccessToken, type AccessGrant } from "./features/oauth/index.js";
import { RequestLogRetention } from "./features/request-log/retention.js";
import { RequestLogWriter } from "./features/request-log/writer.js";
import type { Runner } from "./features/runtime/runner.js";
import type { Services } from "./http/deps.js";
import { PgRateLimiter } from "./http/rate-limit.js";
import type { Logger } from "./log.js";
import type { DefinitionKind } from "../shared/definitions.js";

// The platform's gateways (platform.ts): what they are given (access tokens, sign-in cookies,
// pins, fair use, the bus) and who is told of their requests (the owners' request log, metrics,
// traces); the one that serves MCP traffic here and, when other processes forward to this
// runner, the one on its internal port.

export interface GatewayWiring {
  config: Config;
  database: Database;
  log: Logger;
  bus: Bus;
  services: Pick<Services, "auth" | "revocations" | "domains">;
  /** the observability's observers (metrics, traces) */
  observers: GatewayObserver[];
  /** this process's runner, when it has the runner role */
  runner: Runner | undefined;
  roles: { gateway: boolean; alone: boolean };
  clusterSecret: string | undefined;
  /** the runner's internal port was asked for (PlatformOptions.runnerListen) */
  runnerListen: boolean;
  /** wakes sleeping deployments (features/deployments/sleep/waker.ts) */
  wake: WakePort;
  /** this process's runner's activity (idle deployments sleep), when it has the runner role */
  activity?: { begin(id: string): () => void };
}

export interface Gateways {
  gateway: Gateway;
  /** the gateway on the runner's internal port, for gateways in other processes */
  runnerGateway: Gateway | undefined;
  requestLog: RequestLogWriter;
  requestLogRetention: RequestLogRetention;
}

export function createGateways(w: GatewayWiring): Gateways {
  const { config, database, log, services, roles, runner } = w;
  const oauth = {
    verify: (token: string) => verifyAccessToken(database.db, token),
    touch: (grant: AccessGrant) => touchGrant(database.db, grant),
  };
  // The playground calls its owner's deployment with the page's sign-in cookie (gateway/admission/access.ts).
  const browserSessions = async (headers: Headers) => {
    const s = await services.auth.api.getSession({ headers }).catch(() => null);
    return s ? { userId: s.user.id, sessionId: s.session.id } : undefined;
  };
  // Told of every request a gateway of this process answered in one of its sessions (gateway/observe.ts).
  const gatewayObservers: (GatewayObserver | undefined)[] = [];
  // The owners' request log and the per-tool figures, written in batches off the request path.
  const requestLog = new RequestLogWriter({
    db: database.db,
    log,
    flushMs: config.USAGE_FLUSH_MS,
    retentionDays: config.REQUEST_LOG_RETENTION_DAYS,
  });
  gatewayObservers.push(requestLog);
  const requestLogRetention = new RequestLogRetention({
    db: database.db,
    log,
    retentionDays: config.REQUEST_LOG_RETENTION_DAYS,
    proRetentionDays: config.REQUEST_LOG_RETENTION_DAYS_PRO,
    proUsers: () => proUserIds(database.db),
    maxRows: config.REQUEST_LOG_MAX_ROWS,
  });
  gatewayObservers.push(...w.observers);
  // Fair use: requests a minute per deployment and per credential by plan, counted cluster-wide (gateway/fair-use.ts).
  const fairUseCounts = new PgRateLimiter(database.db);
  const fairUse = new FairUse({
    rates: { free: config.GATEWAY_RATE_FREE, pro: config.GATEWAY_RATE_PRO },
    planOf: async (userId) => ((await planOf(database.db, userId)).id === "pro" ? "pro" : "free"),
    take: (key, n, windowMs) => fairUseCounts.take(key, n, windowMs),
  });
  // The gateway reads pins and reports listings; features/deployments writes them.
  const pins = {
    review: (o: PinOwner) => loadReview(database.db, o),
    record: (o: PinOwner, kind: DefinitionKind, defs: readonly Definition[], complete: boolean) =>
      recordListing(database.db, o, kind, defs, complete),
  };
  const gatewayDeps = {
    config,
    db: database.db,
    log,
    pins,
    revocations: services.revocations,
    oauth,
    observer: observers(gatewayObservers),
    browserSessions,
    bus: w.bus,
    fairUse,
    popularityChanged: () => void invalidateCatalog(database.db),
    domains: services.domains,
  };
  // Alone, sessions are served right here. Otherwise every gateway forwards to the runner holding
  // the deployment, where the sessions live (features/gateway/forwarding.ts).
  const gateway =
    runner && (roles.alone || !roles.gateway)
      ? allInOneGateway({ ...gatewayDeps, runner, wake: w.wake, activity: w.activity })
      : frontGateway({ ...gatewayDeps, clusterSecret: requiredSecret(w.clusterSecret), wake: w.wake });
  // Its internal port, for gateways in other processes: a runner in a cluster, the primary of
  // several workers, or (given runnerListen) an all-in-one process that extra gateways forward to.
  const runnerGw =
    runner && (w.runnerListen || !(roles.alone && roles.gateway))
      ? runnerGateway({ ...gatewayDeps, runner, activity: w.activity })
      : undefined;
  return { gateway, runnerGateway: runnerGw, requestLog, requestLogRetention };
}

function requiredSecret(secret: string | undefined): string {
  if (!secret) throw new Error("a front gateway needs CLUSTER_SECRET");
  return secret;
}
