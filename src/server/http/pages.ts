import type { Context } from "hono";
import { createRequestHandler, type ServerBuild } from "react-router";
import { githubConfigured } from "../features/auth/auth.js";
import type { AppDeps, Services } from "./deps.js";
import type { AppEnv } from "./middleware.js";

// Everything that is not an API route is a page rendered by React Router (SSR).
export function pagesHandler(deps: AppDeps, services: Services) {
  const load = deps.pages!;
  let handler: ((req: Request, ctx: unknown) => Promise<Response>) | undefined;
  let built: ServerBuild | undefined;
  const github = githubConfigured(deps.config);
  return async (c: Context<AppEnv>) => {
    const build = await load();
    if (!handler || build !== built) {
      built = build;
      handler = createRequestHandler(build, deps.dev ? "development" : "production") as typeof handler;
    }
    return handler!(c.req.raw, {
      config: deps.config,
      db: deps.database.db,
      auth: services.auth,
      viewer: c.get("viewer"),
      githubEnabled: github,
      cspNonce: c.get("cspNonce"),
      requestId: c.get("requestId"),
      sandbox: deps.deployments.sandbox,
    });
  };
}
