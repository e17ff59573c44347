import { getRequestListener } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import http from "node:http";
import path from "node:path";
import type { ServerBuild } from "react-router";
import type { Config } from "./config.js";
import { connect, runMigrations, type Database } from "./db/client.js";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./db/embedded.js";
import { assignRegistryNames } from "./features/catalog/repo.js";
import { seedCatalogIfEmpty } from "./features/catalog/service.js";
import { DeploymentLifecycle } from "./features/deployments/lifecycle.js";
import { SecretBox } from "./features/deployments/secret-box.js";
import { Gateway } from "./features/gateway/index.js";
import type { Mailer } from "./features/mail/mailer.js";
import { touchGrant, verifyAccessToken, type AccessGrant } from "./features/oauth/index.js";
import { namespaceFor } from "./features/registry-api/format.js";
import { createRuntime, type Runtime } from "./features/runtime/index.js";
import { createApp, createServices } from "./http/app.js";
import type { Services } from "./http/deps.js";
import type { Logger } from "./log.js";
import { projectRoot } from "./paths.js";
import { loadOrCreateSecret } from "./secrets.js";

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
}

export interface Platform {
  config: Config;
  log: Logger;
  database: Database;
  runtime: Runtime;
  services: Services & { deployments: DeploymentLifecycle };
  /** signs sessions and tokens (AUTH_SECRET or one generated into DATA_DIR) */
  secret: string;
  box: SecretBox;
  app: Hono;
  gateway: Gateway;
  /** Serves the gateway and the app on `server`, then starts what runs in the background (deployments to recover, the billing sweep). */
  listen(server: http.Server, port: number, host?: string): Promise<{ recovered: number }>;
  /** Stops taking requests, then the gateway, billing, deployments (their rows stay) and the database it opened. */
  close(): Promise<void>;
}

/** Opens DATABASE_URL (or starts the embedded PostgreSQL), migrates it and fills an empty directory with the demo catalogue. */
export async function openDatabase(config: Config, log: Logger): Promise<{ database: Database; embedded?: EmbeddedPostgres }> {
  let url = config.DATABASE_URL;
  let embedded: EmbeddedPostgres | undefined;
  if (!url) {
    const t = performance.now();
    embedded = await startEmbeddedPostgres({ dataDir: path.resolve(projectRoot, config.DATA_DIR), port: config.EMBEDDED_PG_PORT, log: (m) => log.info(m) });
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

export async function createPlatform(o: PlatformOptions): Promise<Platform> {
  const { config, log } = o;
  const opened = o.database ? undefined : await openDatabase(config, log);
  const database = o.database ?? opened!.database;
  const closeDatabase = async () => {
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
    const runtime = await createRuntime(config, log);
    if (!config.SECRETS_KEY && production) log.warn("SECRETS_KEY is not set: using the one generated in DATA_DIR");
    const box = new SecretBox(await loadOrCreateSecret(dataDir, "secrets-key", config.SECRETS_KEY));
    const deployments = new DeploymentLifecycle({ db: database.db, log, box, runner: runtime.runner, hostingPolicy: config.SANDBOX_INCOMPLETE });
    const deps = { config, database, log, secret, mailer: o.mailer, pages: o.pages, dev: Boolean(o.devMiddleware), deployments, box };
    const services = { ...createServices(deps), deployments };
    if (!services.billing.webhooksEnabled && production) log.warn("BILLING TEST MODE: no Stripe keys, so 'Subscribe to Pro' uses the built-in test checkout and anyone can become Pro without paying");
    const app = new Hono();
    if (o.pages && !o.devMiddleware) serveAssets(app);
    app.route("/", createApp(deps, services));
    const oauth = { verify: (token: string) => verifyAccessToken(database.db, token), touch: (grant: AccessGrant) => touchGrant(database.db, grant) };
    const gateway = new Gateway({ config, db: database.db, log, runner: runtime.runner, revocations: services.revocations, oauth });
    let server: http.Server | undefined;
    let closing: Promise<void> | undefined;

    return {
      config,
      log,
      database,
      runtime,
      services,
      secret,
      box,
      app,
      gateway,
      async listen(srv, port, host) {
        server = srv;
        const listener = getRequestListener(app.fetch);
        const dev = o.devMiddleware;
        srv.on("request", gateway.handler(dev ? (req, res) => dev(req, res, () => void listener(req, res)) : listener));
        await new Promise<void>((resolve, reject) => {
          srv.once("error", reject);
          srv.listen(port, host, () => resolve());
        });
        const recovered = await deployments.recover();
        services.billing.start();
        return { recovered };
      },
      close: () =>
        (closing ??= (async () => {
          if (server?.listening) {
            const s = server;
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
          services.billing.close();
          // Children stop gracefully first; their rows stay so the next start brings them back.
          await deployments.shutdown();
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
