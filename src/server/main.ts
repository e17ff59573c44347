// Start-up: config -> database (embedded unless DATABASE_URL) -> migrations -> http.
import { getRequestListener } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { connect, runMigrations, type Database } from "./db/client.js";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./db/embedded.js";
import { assignRegistryNames } from "./features/catalog/repo.js";
import { seedCatalogIfEmpty } from "./features/catalog/service.js";
import { namespaceFor } from "./features/registry-api/format.js";
import { createRuntime } from "./features/runtime/index.js";
import { Gateway } from "./features/gateway/index.js";
import { createApp, createServices } from "./http/app.js";
import { createLogger, type Logger } from "./log.js";
import { projectRoot } from "./paths.js";
import { loadOrCreateSecret } from "./secrets.js";

export interface Running {
  config: Config;
  url: string;
  stop(): Promise<void>;
}

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
  try {
    await runMigrations(database.db);
  } catch (e) {
    await database.close();
    await embedded?.stop();
    throw e;
  }
  const namespace = namespaceFor(config.PUBLIC_URL);
  const seeded = await seedCatalogIfEmpty(database.db, namespace);
  if (seeded) log.info({ servers: seeded }, "demo catalogue added to the empty directory");
  await assignRegistryNames(database.db, namespace);
  return { database, embedded };
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

export async function start(opts: StartOptions = {}): Promise<Running> {
  const config = loadConfig(opts.env);
  const log = createLogger({ level: config.LOG_LEVEL, pretty: config.NODE_ENV !== "production" && process.stdout.isTTY });
  const { database, embedded } = await openDatabase(config, log);

  const server = http.createServer();
  const dev = opts.dev ? await opts.dev(server) : undefined;
  let pages = dev?.pages;
  if (!pages) {
    const buildFile = path.join(projectRoot, "build/server/index.js");
    const build = (await import(pathToFileURL(buildFile).href)) as ServerBuild;
    pages = async () => build;
  }
  const secret = await loadOrCreateSecret(path.resolve(projectRoot, config.DATA_DIR), "auth-secret", config.AUTH_SECRET);
  if (!config.AUTH_SECRET && config.NODE_ENV === "production") log.warn("AUTH_SECRET is not set: using the one generated in DATA_DIR");
  const runtime = await createRuntime(config, database.db, log);
  const deps = { config, database, log, secret, pages, dev: Boolean(dev), runtime };
  const services = createServices(deps);
  services.billing.start();
  if (!services.billing.webhooksEnabled && config.NODE_ENV === "production") log.warn("BILLING TEST MODE: no Stripe keys, so 'Subscribe to Pro' uses the built-in test checkout and anyone can become Pro without paying");
  const app = createApp(deps, services);
  const root = new Hono();
  if (!dev) {
    const clientDir = path.relative(process.cwd(), path.join(projectRoot, "build/client"));
    // Fingerprinted assets never change: cache them for a year.
    root.use("/assets/*", async (c, next) => {
      await next();
      if (c.res.status === 200) c.header("Cache-Control", "public, max-age=31536000, immutable");
    });
    root.use("/assets/*", serveStatic({ root: clientDir }));
    root.use("/favicon.svg", serveStatic({ root: clientDir }));
    root.get("/favicon.ico", (c) => c.redirect("/favicon.svg", 301));
  }
  root.route("/", app);

  const listener = getRequestListener(root.fetch);
  // The MCP gateway answers /{proxy_id}/mcp|sse|messages before Hono: its hot path stays lean.
  const gateway = new Gateway({ config, db: database.db, supervisor: runtime.supervisor, log });
  server.on("request", gateway.handler(dev ? (req, res) => dev.middleware(req, res, () => void listener(req, res)) : listener));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  }).catch(async (e: unknown) => {
    await database.close();
    await embedded?.stop();
    throw (e as NodeJS.ErrnoException).code === "EADDRINUSE" ? new Error(`Port ${config.PORT} is already in use: stop the other process or set PORT`) : e;
  });
  const url = `http://localhost:${config.PORT}`;
  log.info(`${config.SITE_NAME} is listening on ${url} (public URL ${config.PUBLIC_URL})`);
  const recovered = await runtime.supervisor.recover();
  if (recovered) log.info({ deployments: recovered }, "restarting deployments that were running");

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down");
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections would hold close() open; end the idle ones now.
        server.closeIdleConnections();
        setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, 5000).unref();
      });
      await gateway.close();
      services.billing.close();
      // Children stop gracefully first; their rows stay so the next start brings them back.
      await runtime.supervisor.shutdown();
      await dev?.close();
      await database.close();
      if (embedded) {
        await embedded.stop();
        log.info("embedded PostgreSQL stopped");
      }
    })());
  return { config, url, stop };
}

export async function main(opts: Parameters<typeof start>[0] = {}): Promise<void> {
  let running: Running;
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
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    if (++signals > 1) {
      console.error(`${sig} again: exiting now`);
      process.exit(130);
    }
    running.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error("Shutdown failed:", e);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

