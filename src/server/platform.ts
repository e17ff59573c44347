import { Hono } from "hono";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { ServerBuild } from "react-router";
import type { Bus } from "./cluster/bus.js";
import { PgBus } from "./cluster/pg-bus.js";
import { publish, signal, subscribe, TOPICS } from "./cluster/topics.js";
import { claimRun } from "./cluster/jobs.js";
import { runnerRequestListener } from "./cluster/runner-server.js";
import type { Config } from "./config.js";
import type { Database } from "./db/client.js";
import { connectCatalogCache } from "./features/catalog/cache.js";
import { findServer } from "./features/catalog/repo.js";
import { usableServers } from "./features/publishers/service.js";
import type { KeyServers } from "./features/api-keys/api-keys.js";
import { CatalogChecks } from "./features/deployments/checks/checks.js";
import { remoteProbe } from "./features/deployments/checks/remote-check.js";
import { SeedChecks } from "./features/deployments/checks/seed-checks.js";
import { RegistrySync } from "./features/registry-api/sync.js";
import { DeploymentLifecycle } from "./features/deployments/lifecycle.js";
import { RunnerAgent } from "./features/deployments/runner-agent.js";
import { SecretBox } from "./features/deployments/secret-box.js";
import { runnerAuth } from "./features/connections/upstream-oauth.js";
import { Waker } from "./features/deployments/sleep/waker.js";
import { planOf } from "./features/billing/plan.js";
import { LRU_IDLE_MS } from "../shared/billing.js";
import { totalCounts, type Gateway } from "./features/gateway/index.js";
import { deploymentResources } from "./features/oauth/index.js";
import { createObservability } from "./features/observability/index.js";
import { healthRoutes } from "./features/health/routes.js";
import type { Mailer } from "./features/mail/mailer.js";
import { createRuntime, type Runtime } from "./features/runtime/index.js";
import { createApp, createServices } from "./http/app.js";
import type { Services } from "./http/deps.js";
import type { Logger } from "./log.js";
import { projectRoot } from "./paths.js";
import { openDatabase } from "./platform-database.js";
import { createGateways } from "./platform-gateway.js";
import { closeServers, listenOn, publicListener, serveAssets } from "./platform-http.js";
import { backgroundJobs } from "./platform-jobs.js";
import { loadOrCreateSecret } from "./secrets.js";
import { runnerCalls } from "./cluster/runner-calls.js";

// The one assembly of the platform, used by `npm start`, dev mode, the tests and the benchmarks:
// config -> database -> runtime (sandbox, runner) -> services (deployments, billing, auth) ->
// HTTP app -> gateway. `listen` starts what runs in the background; `close` ends everything in
// the reverse order. Its parts: the database (platform-database.ts), the gateways
// (platform-gateway.ts), the background jobs (platform-jobs.ts) and the HTTP servers (platform-http.ts).

export { openDatabase };

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
    // Prometheus metrics and traces (docs/observability.md); the gateway gauges read the gateways made below.
    const observability = createObservability({
      config,
      db: database.db,
      log,
      gateways: () => totalCounts([gateway, runnerGateway]),
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
          publicUrl: config.PUBLIC_URL,
          remoteAuth: (sealed, store) => runnerAuth(box, config.PUBLIC_URL, sealed, store),
          idleMs: config.DEPLOY_IDLE_MS,
        })
      : undefined;
    const deployments = new DeploymentLifecycle({
      db: database.db,
      log,
      agent,
      calls: runnerCalls(clusterSecret, wake),
      memoryMb: config.DEPLOY_MEMORY_MB,
      leaseMs: config.RUNNER_LEASE_MS,
      resources: deploymentResources(config.PUBLIC_URL),
      announce: (id, proxyId) => void publish(b, TOPICS.exposure, { id, proxyId, quiet: true }),
    });
    // A request to a sleeping deployment wakes it; where this process serves the sessions itself, its runner says when it answers.
    const servesHere = runtime && (roles.alone || !roles.gateway);
    const waker = new Waker({
      db: database.db,
      log,
      lifecycle: deployments,
      planOf: (userId) => planOf(database.db, userId),
      policy: { lruIdleMs: LRU_IDLE_MS },
      publicUrl: config.PUBLIC_URL,
      startTimeoutMs: config.DEPLOY_START_TIMEOUT_MS,
      ...(servesHere ? { servedHere: (id: string) => runtime.runner.channel(id) !== undefined } : {}),
      onWake: observability.wake,
    });
    // 'Check now': the platform lists catalogue entries itself (deployments/checks/checks.ts).
    const checks = new CatalogChecks({ db: database.db, config, box, lifecycle: deployments, log, probeRemote: remoteProbe(config) });
    // The demo catalogue checked in the background, its listings trusted (deployments/checks/seed-checks.ts): SEED_CHECKS.
    const seedChecks = new SeedChecks({
      db: database.db,
      log,
      config,
      sandboxComplete: () => deployments.sandbox.complete,
      check: (id) => checks.start(id),
    });
    // The living catalogue (registry-api/sync.ts): off unless REGISTRY_SYNC_URL is set.
    const registrySync = new RegistrySync({ db: database.db, log, config, check: (id) => checks.start(id) });
    // api-keys checks the servers a key names through this port (api-keys/api-keys.ts).
    const keyServers: KeyServers = { catalogServer: (id) => findServer(database.db, id), ...usableServers(database.db) };
    const deps = {
      config,
      database,
      log,
      secret,
      keyServers,
      mailer: o.mailer,
      pages: o.pages,
      dev: Boolean(o.devMiddleware),
      deployments,
      box,
      bus,
      checks,
      registrySync,
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
    const { gateway, runnerGateway, requestLog, requestLogRetention } = createGateways({
      config,
      database,
      log,
      bus,
      services,
      observers: observability.observers,
      runner: runtime?.runner,
      roles,
      clusterSecret,
      runnerListen: Boolean(o.runnerListen),
      wake: waker,
      activity: agent?.activity,
    });
    const jobs = backgroundJobs({
      observability,
      deployments,
      billing: services.billing,
      alerts: services.alerts,
      domains: services.domains,
      auditRetention: services.auditRetention,
      requestLog,
      requestLogRetention,
      checks,
      seedChecks,
      registrySync,
      web: roles.web,
    });
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
        gateway.start();
        runnerGateway?.start();
        if (runnerGateway && agent) {
          if (!clusterSecret) throw new Error("CLUSTER_SECRET is needed for a runner that other processes forward to");
          const at = o.runnerListen ?? { host: config.RUNNER_HOST, port: config.RUNNER_PORT };
          runnerServer = http.createServer(
            runnerRequestListener({ secret: clusterSecret, agent, gateway: runnerGateway, pool: database.pool, log }),
          );
          runnerServer.keepAliveTimeout = 65_000;
          const bound = await listenOn(runnerServer, at.port, at.host);
          // Given a port here (the primary of several workers, a benchmark), that is where it is reached.
          if (o.runnerListen && !config.RUNNER_URL) agent.url = `http://${at.host}:${bound}`;
          runnerUrl = agent.url;
          log.info({ runner: agent.id, url: agent.url }, "runner listening for gateways");
        }
        if (srv) {
          server = srv;
          // A web-only process leaves MCP traffic to the gateways.
          srv.on("request", publicListener(app, roles.gateway ? gateway : undefined, o.devMiddleware));
          await listenOn(srv, port, host);
        }
        const recovered = await jobs.start();
        return { recovered, runnerUrl };
      },
      close: () =>
        (closing ??= (async () => {
          await closeServers([server, runnerServer]);
          await gateway.close();
          await runnerGateway?.close();
          await jobs.stop();
          disconnectCatalog();
          await closeDatabase();
        })()),
    };
  } catch (e) {
    await closeDatabase();
    throw e;
  }
}
