// Start-up: config -> the platform (database, runtime, services, HTTP, gateway) -> listening.
// With several worker processes (WORKERS), the primary holds the runner role and the workers
// serve pages, the API and MCP traffic on the one port, forwarding MCP sessions to the runner.
import cluster from "node:cluster";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { createLogger } from "./log.js";
import { projectRoot } from "./paths.js";
import type { Logger } from "./log.js";
import { createPlatform, type Platform } from "./platform.js";
import { serveWorkersMetrics } from "./features/observability/index.js";
import { loadOrCreateSecret } from "./secrets.js";
import { WAY_IN_TEXT } from "../shared/way-in.js";

export interface Running {
  config: Config;
  url: string;
  stop(): Promise<void>;
}

/** Dev mode puts Vite's middleware in front of the app and loads pages through Vite. */
export interface DevServer {
  middleware: (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;
  pages: () => Promise<ServerBuild>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  dev?: (server: http.Server) => Promise<DevServer>;
}

/** WORKERS: auto is one per core in production, else one. */
export function workerCount(config: Config): number {
  if (config.WORKERS !== "auto") return config.WORKERS;
  return config.NODE_ENV === "production" ? os.availableParallelism() : 1;
}

export async function start(opts: StartOptions = {}): Promise<Running> {
  const config = loadConfig(opts.env);
  const log = createLogger({ level: config.LOG_LEVEL, pretty: config.NODE_ENV !== "production" && process.stdout.isTTY });
  const serving = config.ROLES.web || config.ROLES.gateway;
  const workers = serving && !opts.dev && cluster.isPrimary ? workerCount(config) : 1;
  if (workers > 1) return startPrimary(config, log, workers);
  if (!serving) return startRunnerOnly(config, log);
  const server = http.createServer();
  const dev = opts.dev ? await opts.dev(server) : undefined;
  const buildFile = path.join(projectRoot, "build/server/index.js");
  let pages = dev?.pages;
  if (!pages) {
    const build = (await import(pathToFileURL(buildFile).href)) as ServerBuild;
    pages = async () => build;
  }
  const platform = await createPlatform({ config, log, pages, devMiddleware: dev?.middleware });
  let recovered: number;
  try {
    ({ recovered } = await platform.listen(server, config.PORT, config.HOST));
  } catch (e) {
    await platform.close();
    await dev?.close();
    throw (e as NodeJS.ErrnoException).code === "EADDRINUSE"
      ? new Error(`Port ${config.PORT} is already in use: stop the other process or set PORT`)
      : e;
  }
  const url = `http://localhost:${config.PORT}`;
  if (cluster.isWorker) log.info({ worker: cluster.worker?.id }, `worker listening on ${url}`);
  else log.info(`${config.SITE_NAME} is listening on ${url} (public URL ${config.PUBLIC_URL})`);
  if (!cluster.isWorker && config.publicUrlDerived) log.warn(WAY_IN_TEXT.publicUrlUnset(config.PUBLIC_URL));
  if (recovered) log.info({ deployments: recovered }, "restarting deployments that were running");

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down");
      await platform.close();
      await dev?.close();
    })());
  return { config, url, stop };
}

/** A runner alone (ROLES=runner): no public port, only the runner's internal one. */
async function startRunnerOnly(config: Config, log: Logger): Promise<Running> {
  const platform = await createPlatform({ config, log });
  try {
    const { recovered, runnerUrl } = await platform.listen(undefined, config.PORT);
    log.info({ runner: config.RUNNER_NAME ?? os.hostname(), url: runnerUrl, deployments: recovered }, "runner ready");
  } catch (e) {
    await platform.close();
    throw e;
  }
  let stopping: Promise<void> | undefined;
  return { config, url: "", stop: () => (stopping ??= (log.info("shutting down: handing deployments over"), platform.close())) };
}

/**
 * Several worker processes on one machine. The primary opens the database (the embedded one by
 * default), runs the runner role when this process has it (alone with ROLES=all: its internal port
 * on loopback, chosen by the system), and forks the workers, which share PORT (Node's cluster
 * module hands each connection to the next worker) and forward MCP sessions to the runner. A worker
 * that dies is started again.
 */
async function startPrimary(config: Config, log: Logger, workers: number): Promise<Running> {
  const roles = config.ROLES;
  const dataDir = path.resolve(projectRoot, config.DATA_DIR);
  const clusterSecret = config.CLUSTER_SECRET ?? (await loadOrCreateSecret(dataDir, "cluster-secret", undefined));
  let platform: Platform | undefined;
  let databaseUrl = config.DATABASE_URL;
  if (roles.runner) {
    platform = await createPlatform({
      config,
      log,
      roles: { web: false, gateway: false, runner: true, alone: roles.all },
      runnerListen: roles.all ? { host: "127.0.0.1", port: 0 } : undefined,
      clusterSecret,
    });
    try {
      await platform.listen(undefined, config.PORT);
    } catch (e) {
      await platform.close();
      throw e;
    }
    databaseUrl = platform.databaseUrl;
  }
  // Without a platform of its own the primary still gathers the workers' metrics for a scrape.
  const workersMetrics = platform ? undefined : await serveWorkersMetrics(config, log);
  const env = {
    ROLES: [roles.web && "web", roles.gateway && "gateway"].filter(Boolean).join(","),
    WORKERS: "1",
    DATABASE_URL: databaseUrl ?? "",
    CLUSTER_SECRET: clusterSecret,
  };
  cluster.setupPrimary({ exec: path.join(projectRoot, "dist/server.js") });
  let stopping = false;
  const fork = () => {
    const w = cluster.fork(env);
    w.once("exit", (code, signal) => {
      if (stopping) return;
      log.error({ worker: w.id, code, signal }, "worker exited: starting another");
      setTimeout(() => !stopping && fork(), 1000).unref();
    });
    return w;
  };
  const started = Array.from({ length: workers }, fork);
  try {
    await Promise.all(
      started.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.once("listening", () => resolve());
            w.once("exit", (code) => reject(new Error(`a worker exited while starting (code ${code}); is port ${config.PORT} in use?`)));
          }),
      ),
    );
  } catch (e) {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGKILL");
    await platform?.close();
    throw e;
  }
  const url = `http://localhost:${config.PORT}`;
  log.info({ workers }, `${config.SITE_NAME} is listening on ${url} (public URL ${config.PUBLIC_URL}) with ${workers} worker processes`);
  if (config.publicUrlDerived) log.warn(WAY_IN_TEXT.publicUrlUnset(config.PUBLIC_URL));
  let done: Promise<void> | undefined;
  const stop = () =>
    (done ??= (async () => {
      stopping = true;
      log.info("shutting down");
      await Promise.all(
        Object.values(cluster.workers ?? {}).map(
          (w) =>
            new Promise<void>((resolve) => {
              if (!w || w.isDead()) return resolve();
              w.once("exit", () => resolve());
              w.process.kill("SIGTERM");
              setTimeout(() => {
                w.process.kill("SIGKILL");
                resolve();
              }, 15_000).unref();
            }),
        ),
      );
      await platform?.close();
      await workersMetrics?.close();
    })());
  return { config, url, stop };
}

export async function main(opts: Parameters<typeof start>[0] = {}): Promise<void> {
  let running: Running | undefined;
  let stopAsked = false;
  let signals = 0;
  const shutdown = (r: Running) =>
    r.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error("Shutdown failed:", e);
        process.exit(1);
      },
    );
  // Listening for signals from the first moment: one that comes while the app is still starting
  // (it may already answer /readyz while recovery finishes) stops it cleanly once it is up,
  // rather than killing it with its database and children half-way.
  const onSignal = (sig: NodeJS.Signals) => {
    // A worker hears Ctrl-C with its whole process group, then the primary's SIGTERM: it is
    // stopping already, and finishes (writing its last usage counts) rather than exiting at once.
    if (signals > 0 && cluster.isWorker) return;
    if (++signals > 1) {
      console.error(`${sig} again: exiting now`);
      process.exit(130);
    }
    if (running) void shutdown(running);
    else stopAsked = true;
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    running = await start(opts);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
    } else {
      console.error("Start-up failed:", e instanceof Error ? e.message : e);
    }
    process.exit(1);
  }
  if (stopAsked) void shutdown(running);
}
