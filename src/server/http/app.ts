import { Hono } from "hono";
import type { ServerBuild } from "react-router";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import { healthRoutes } from "../features/health/routes.js";
import { waitlistRoutes } from "../features/waitlist/routes.js";
import type { Logger } from "../log.js";
import { toErrorResponse } from "./error-map.js";
import { apiRouter } from "./openapi.js";
import { originCheck, requestContext, securityHeaders, type AppEnv } from "./middleware.js";
import { pagesHandler } from "./pages.js";

export interface AppDeps {
  config: Config;
  database: Database;
  log: Logger;
  /** The React Router server build; a function so dev mode can reload it on every request. */
  pages?: () => Promise<ServerBuild>;
  dev?: boolean;
}

export function createApi(deps: AppDeps) {
  const api = apiRouter();
  api.route("/", waitlistRoutes({ db: deps.database.db }));
  api.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: `${deps.config.SITE_NAME} API`, version: "0.1.0" },
    servers: [{ url: `${deps.config.PUBLIC_URL}/api` }],
  });
  return api;
}

export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.use(requestContext(deps.log));
  app.use(securityHeaders(deps.config, { dev: deps.dev ?? false }));
  app.use("/api/*", originCheck(deps.config));
  app.onError((err, c) => toErrorResponse(err, c, deps.log));

  app.route("/", healthRoutes({ pool: deps.database.pool }));
  app.route("/api", createApi(deps));
  app.all("/api/*", (c) => c.json({ error: "Not found", code: "not_found" }, 404));
  if (deps.pages) app.all("*", pagesHandler(deps));
  return app;
}
