import { getRequestListener } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { ServerBuild } from "react-router";
import type { Bus } from "./cluster/bus.js";
import { PgBus } from "./cluster/pg-bus.js";
import { loadReview, recordListing, type PinOwner } from "./features/deployments/definitions-repo.js";
import type { Definition } from "./features/deployments/definitions.js";
import type { DefinitionKind } from "../shared/definitions.js";
import { publish, signal, subscribe, TOPICS } from "./cluster/topics.js";
import { claimRun } from "./cluster/jobs.js";
import { runnerRequestListener } from "./cluster/runner-server.js";
import type { Config } from "./config.js";
import { connect, runMigrations, type Database } from "./db/client.js";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./db/embedded.js";
import { connectCatalogCache, invalidateCatalog } from "./features/catalog/cache.js";
import { assignRegistryNames } from "./features/catalog/registry-repo.js";
import { seedCatalogIfEmpty } from "./features/catalog/service.js";
import { CatalogChecks } from "./features/deployments/checks.js";
import { planOf } from "./features/billing/plan.js";
import { FairUse } from "./features/gateway/fair-use.js";
import { PgRateLimiter } from "./http/rate-limit.js";
import { DeploymentLifecycle } from "./features/deployments/lifecycle.js";
import { RunnerAgent } from "./features/deployments/runner-agent.js";
import { SecretBox } from "./features/deployments/secret-box.js";
import { Gateway } from "./features/gateway/index.js";
import { observers, type GatewayObserver } from "./features/gateway/observe.js";
import { createObservability } from "./features/observability/index.js";
import { RequestLogRetention } from "./features/request-log/retention.js";
import { RequestLogWriter } from "./features/request-log/writer.js";
import { healthRoutes } from "./features/health/routes.js";
import type { Mailer } from "./features/mail/mailer.js";
import { touchGrant, verifyAccessToken, type AccessGrant } from "./features/oauth/index.js";
import { namespaceFor } from "./features/registry-api/format.js";
import { createRuntime, type Runtime } from "./features/runtime/index.js";
import { createApp, createServices } from "./http/app.js";
import type { Services } from "./http/deps.js";
import type { Logger } from "./log.js";
import { projectRoot } from "./paths.js";
import { loadOrCreateSecret } from "./secrets.js";
import { runnerCalls } from "./cluster/runner-calls.js";

// The one assembly of the platform, used by `npm start`, dev mode, the tests and the benchmarks:
// config -> database -> runtime (sandbox, runner) -> services (deployments, billing, auth) ->
// HTTP app -> gateway. `listen` starts what runs in the background; `close` ends everything in
// the reverse order.

export interface PlatformOptions {
  config: Config;
  log: Logger;
  /** An open, migrated database (the tests' own); without one the platform opens DATABASE_URL or the embedded PostgreSQL. */
  database?: Database;
  mailer?: Mailer;
  /** The React Router server build; a function so dev mode can reload it on every request. Without it, no pages. */
  pages?: () => Promise<ServerBuild>;
  /** Dev mode: Vite's middleware in front of the app, relaxed CSP. */
  devMiddleware?: (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;
  /**
   * What this process does (default: config.ROLES). The primary of several worker processes on one
   * machine is the runner alone; its workers are web and gateway.
   */
  roles?: Roles;
  /** CLUSTER_SECRET, or the one the primary of several workers generated */
  clusterSecret?: string;
  /** The runner's internal port, when other processes forward to it (default RUNNER_HOST:RUNNER_PORT; port 0 picks a free one). */
  runnerListen?: { host: string; port: number };
}

/** web: pages and REST API; gateway: MCP traffic; runner: hosted servers; alone: the only process (ROLES=all, one worker). */
export interface Roles {
  web: boolean;
  gateway: boolean;
  runner: boolean;
  alone: boolean;
}

export interface Platform {
  config: Config;
  log: Logger;
  database: Database;
  /** where other processes of this machine reach the same database (the embedded one's address, or DATABASE_URL) */
  databaseUrl: string | undefined;
  /** this process's one bus: revocations and cache invalidations reach every process (cluster/bus.ts) */
  bus: Bus;
  roles: Roles;
  /** this process's runner (sandbox, installer), when it has the runner role */
  runtime: Runtime | undefined;
  services: Services & { deployments: DeploymentLifecycle };
  /** signs sessions and tokens (AUTH_SECRET or one generated into DATA_DIR) */
  secret: string;
  box: SecretBox;
  app: Hono;
  gateway: Gateway;
  /**
   * Serves the gateway and the app on `server` (when the process has the web or gateway role),
   * opens the runner's internal port (when other processes forward to it), then starts what runs
   * in the background (the runner's deployments, the billing sweep).
   */
  listen(server: http.Server | undefined, port: number, host?: string): Promise<{ recovered: number; runnerUrl?: string }>;
  /** Stops taking requests, then the gateway, billing, deployments (their rows stay) and the database it opened. */
  close(): Promise<void>;
}

/** Opens DATABASE_URL (or starts the embedded PostgreSQL), migrates it and fills an empty directory with the demo catalogue. */
export async function openDatabase(config: Config, log: Logger): Promise<{ database: Database; embedded?: EmbeddedPostgres }> {
  let url = config.DATABASE_URL;
  let embedded: EmbeddedPostgres | undefined;
  if (!url) {
    const t = performance.now();
    embedded = await startEmbeddedPostgres({
      dataDir: path.resolve(projectRoot, config.DATA_DIR),
      port: config.EMBEDDED_PG_PORT,
      log: (m) => log.info(m),
    });
    url = embedded.url;
    log.info({ port: embedded.port, ms: Math.round(performance.now() - t) }, "embedded PostgreSQL ready");
  }
  const database = connect(url);
  // Several processes may start at once on one database (a cluster, worker processes): one at a
  // time migrates and seeds; the others then find nothing left to do.
  const lock = await database.pool.connect().catch(async (e: unknown) => {
    await database.close();
    await embedded?.stop();
    throw e;
  });
  try {
    await lock.query("select pg_advisory_lock(hashtextextended('switchboard:migrate', 0))");
    await runMigrations(database.db);
    const namespace = namespaceFor(config.PUBLIC_URL);
    const seeded = await seedCatalogIfEmpty(database.db, namespace);
    if (seeded) log.info({ servers: seeded }, "demo catalogue added to the empty directory");
    await assignRegistryNames(database.db, namespace);
  } catch (e) {
    lock.release(true);
    await database.close();
    await embedded?.stop();
    throw e;
  }
  await lock.query("select pg_advisory_unlock(hashtextextended('switchboard:migrate', 0))").catch(() => {});
  lock.release();
  return { database, embedded };
}

export async function createPlatform(o: PlatformOptions): Promise<Platform> {
  const { config, log } = o;
  const roles: Roles = o.roles ?? {
    web: config.ROLES.web,
    gateway: config.ROLES.gateway,
    runner: config.ROLES.runner,
    alone: config.ROLES.all,
  };
  const opened = o.database ? undefined : await openDatabase(config, log);
  const database = o.database ?? opened!.database;
  let bus: PgBus | undefined;
  const closeDatabase = async () => {
    await bus?.close();
    if (!opened) return;
    await opened.database.close();
    if (opened.embedded) {
      await opened.embedded.stop();
      log.info("embedded PostgreSQL stopped");
    }
  };
  try {
    const dataDir = path.resolve(projectRoot, config.DATA_DIR);
    const production = config.NODE_ENV === "production";
    const secret = await loadOrCreateSecret(dataDir, "auth-secret", config.AUTH_SECRET);
    if (!config.AUTH_SECRET && production) log.warn("AUTH_SECRET is not set: using the one generated in DATA_DIR");
    // Facts every process must learn at once (revocations, catalogue writes, a runner to wake).
    bus = new PgBus(database.pool, { log });
    await bus.listen();
    const disconnectCatalog = connectCatalogCache(database.db, bus);
    const runtime = roles.runner ? await createRuntime(config, log) : undefined;
    if (!config.SECRETS_KEY && production) log.warn("SECRETS_KEY is not set: using the one generated in DATA_DIR");
    const box = new SecretBox(await loadOrCreateSecret(dataDir, "secrets-key", config.SECRETS_KEY));
    const clusterSecret = o.clusterSecret ?? config.CLUSTER_SECRET;
    const b = bus;
    const wake = (runnerId: string) => void signal(b, TOPICS.runnerWake(runnerId));
    const capacityMb = config.RUNNER_CAPACITY_MB ?? Math.floor((os.totalmem() / 1024 / 1024) * 0.8);
    // Prometheus metrics and traces (docs/observability.md); the sessions gauge reads the gateways made below.
    const observability = createObservability({
      config,
      db: database.db,
      log,
      sessions: () => gateway.sessionCount + (runnerGateway?.sessionCount ?? 0),
      runner: runtime && {
        runs: (id) => runtime.runner.runs(id),
        rssBytes: (id) => runtime.runner.rssBytes(id),
        outputStats: (id) => runtime.runner.outputStats(id),
        capacityMb,
        memoryMb: config.DEPLOY_MEMORY_MB,
      },
    });
    const agent = runtime
      ? new RunnerAgent({
          db: database.db,
          log,
          box,
          runner: runtime.runner,
          id: config.RUNNER_NAME ?? os.hostname(),
          url: config.RUNNER_URL ?? `http://${os.hostname()}:${config.RUNNER_PORT}`,
          capacityMb,
          memoryMb: config.DEPLOY_MEMORY_MB,
          leaseMs: config.RUNNER_LEASE_MS,
          hostingPolicy: config.SANDBOX_INCOMPLETE,
          alone: roles.alone,
          claim: (name, everyMs) => claimRun(database.db, name, everyMs),
          wake,
          onWake: (runnerId, cb) => subscribe(b, TOPICS.runnerWake(runnerId), () => cb()),
          announce: (id, proxyId) => void publish(b, TOPICS.exposure, { id, proxyId, quiet: true }),
          onEvent: observability.runnerEvent,
        })
      : undefined;
    const deployments = new DeploymentLifecycle({
      db: database.db,
      log,
      agent,
      calls: runnerCalls(clusterSecret, wake),
      memoryMb: config.DEPLOY_MEMORY_MB,
      leaseMs: config.RUNNER_LEASE_MS,
    });
    // 'Check now': the platform lists catalogue entries itself (deployments/checks.ts).
    const checks = new CatalogChecks({ db: database.db, config, box, lifecycle: deployments, log });
    const deps = {
      config,
      database,
      log,
      secret,
      mailer: o.mailer,
      pages: o.pages,
      dev: Boolean(o.devMiddleware),
      deployments,
      box,
      bus,
      checks,
    };
    const services = { ...createServices(deps), deployments };
    if (!services.billing.webhooksEnabled && production && roles.web)
      log.warn(
        "BILLING TEST MODE: no Stripe keys, so 'Subscribe to Pro' uses the built-in test checkout and anyone can become Pro without paying",
      );
    const app = new Hono();
    observability.mount(app);
    if (roles.web) {
      if (o.pages && !o.devMiddleware) serveAssets(app);
      app.route("/", createApp(deps, services));
    } else {
      // A gateway-only process answers the operators' probes and nothing else of the web app.
      app.route("/", healthRoutes({ pool: database.pool }));
    }
    const oauth = {
      verify: (token: string) => verifyAccessToken(database.db, token),
      touch: (grant: AccessGrant) => touchGrant(database.db, grant),
    };
    // The playground calls its owner's deployment with the page's sign-in cookie (gateway/access.ts).
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
      maxRows: config.REQUEST_LOG_MAX_ROWS,
    });
    gatewayObservers.push(...observability.observers);
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
      bus,
      fairUse,
      popularityChanged: () => void invalidateCatalog(database.db),
    };
    // Alone, sessions are served right here. Otherwise every gateway forwards to the runner holding
    // the deployment, where the sessions live (features/gateway/cluster.ts).
    const gateway =
      runtime && (roles.alone || !roles.gateway)
        ? new Gateway({ ...gatewayDeps, runner: runtime.runner })
        : new Gateway({ ...gatewayDeps, clusterSecret });
    // Its internal port, for gateways in other processes: a runner in a cluster, the primary of
    // several workers, or (given runnerListen) an all-in-one process that extra gateways forward to.
    const runnerGateway =
      runtime && (o.runnerListen || !(roles.alone && roles.gateway))
        ? new Gateway({ ...gatewayDeps, runner: runtime.runner, forwarded: true })
        : undefined;
    let server: http.Server | undefined;
    let runnerServer: http.Server | undefined;
    let closing: Promise<void> | undefined;

    return {
      config,
      log,
      database,
      databaseUrl: opened?.embedded?.url ?? config.DATABASE_URL,
      roles,
      runtime,
      bus,
      services,
      secret,
      box,
      app,
      gateway,
      async listen(srv, port, host) {
        let runnerUrl: string | undefined;
        if (runnerGateway && agent) {
          if (!clusterSecret) throw new Error("CLUSTER_SECRET is needed for a runner that other processes forward to");
          const at = o.runnerListen ?? { host: config.RUNNER_HOST, port: config.RUNNER_PORT };
          runnerServer = http.createServer(
            runnerRequestListener({ secret: clusterSecret, agent, gateway: runnerGateway, pool: database.pool, log }),
          );
          runnerServer.keepAliveTimeout = 65_000;
          await new Promise<void>((resolve, reject) => {
            runnerServer!.once("error", reject);
            runnerServer!.listen(at.port, at.host, () => resolve());
          });
          const bound = (runnerServer.address() as net.AddressInfo).port;
          // Given a port here (the primary of several workers, a benchmark), that is where it is reached.
          if (o.runnerListen && !config.RUNNER_URL) agent.url = `http://${at.host}:${bound}`;
          runnerUrl = agent.url;
          log.info({ runner: agent.id, url: agent.url }, "runner listening for gateways");
        }
        if (srv) {
          server = srv;
          const listener = getRequestListener(app.fetch);
          const dev = o.devMiddleware;
          const web: http.RequestListener = dev ? (req, res) => dev(req, res, () => void listener(req, res)) : listener;
          // A web-only process leaves MCP traffic to the gateways.
          srv.on("request", roles.gateway ? gateway.handler(web) : web);
          await new Promise<void>((resolve, reject) => {
            srv.once("error", reject);
            srv.listen(port, host, () => resolve());
          });
        }
        await observability.listen();
        const recovered = await deployments.recover();
        if (roles.web) services.billing.start();
        requestLogRetention.start();
        return { recovered, runnerUrl };
      },
      close: () =>
        (closing ??= (async () => {
          for (const s of [server, runnerServer]) {
            if (!s?.listening) continue;
            await new Promise<void>((resolve) => {
              s.close(() => resolve());
              // Keep-alive connections would hold close() open; end the idle ones now, the rest after 5 s.
              s.closeIdleConnections();
              setTimeout(() => {
                s.closeAllConnections();
                resolve();
              }, 5000).unref();
            });
          }
          await gateway.close();
          await runnerGateway?.close();
          // The last spans go out once no gateway answers any more.
          await observability.close();
          requestLogRetention.close();
          await requestLog.close();
          services.billing.close();
          checks.close();
          // Alone: children stop gracefully and their rows stay so the next start brings them back.
          // In a cluster: each deployment is handed over to another runner first.
          await deployments.shutdown();
          disconnectCatalog();
          await closeDatabase();
        })()),
    };
  } catch (e) {
    await closeDatabase();
    throw e;
  }
}

/** Fingerprinted assets never change: cached for a year. */
function serveAssets(app: Hono) {
  const clientDir = path.relative(process.cwd(), path.join(projectRoot, "build/client"));
  app.use("/assets/*", async (c, next) => {
    await next();
    if (c.res.status === 200) c.header("Cache-Control", "public, max-age=31536000, immutable");
  });
  app.use("/assets/*", serveStatic({ root: clientDir }));
  app.use("/favicon.svg", serveStatic({ root: clientDir }));
  app.get("/favicon.ico", (c) => c.redirect("/favicon.svg", 301));
}
