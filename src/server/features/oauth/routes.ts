import { createRoute, z } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import { connectedAppView, OAUTH_TEXT } from "~/shared/oauth.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import { ACCESS_TEXT, requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import type { Auth } from "../auth/auth.js";
import type { KeyRevocations } from "../api-keys/revocations.js";
import { connectedAppName, listConnectedApps, revokeConnectedApp } from "./grants.js";
import { OAUTH_SERVER_TEXT } from "./text.js";

const bearer: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];

const connectedApp = connectedAppView;

const list = createRoute({
  method: "get",
  path: "/auth/connected-apps",
  tags: ["api keys"],
  summary: "Applications connected to your deployments by OAuth: one per (application, deployment)",
  security: bearer,
  responses: {
    200: { content: { "application/json": { schema: z.object({ data: z.array(connectedApp) }) } }, description: "Connected apps" },
    401: jsonError("Not signed in"),
  },
});

const revoke = createRoute({
  method: "delete",
  path: "/auth/connected-apps/{id}",
  tags: ["api keys"],
  summary: "Revoke a connected app: its access and refresh tokens fail from the next request on",
  security: bearer,
  request: { params: z.object({ id: z.string().min(1).max(2000) }) },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string() }) } },
      description: "Revoked",
    },
    401: jsonError("Not signed in"),
    404: jsonError("Not one of your connected apps"),
  },
});

export function connectedAppRoutes(deps: { db: Db; revocations: KeyRevocations }) {
  const { db } = deps;
  return apiRouter()
    .openapi(list, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      return c.json({ data: await listConnectedApps(db, v.id) }, 200);
    })
    .openapi(revoke, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      const { id } = c.req.valid("param");
      const name = await connectedAppName(db, v.id, id);
      if (!name || !(await revokeConnectedApp(db, v.id, id))) throw new AppError("not_found", OAUTH_SERVER_TEXT.appNotFound);
      deps.revocations.revoked();
      return c.json({ success: true as const, message: OAUTH_TEXT.revoked(name) }, 200);
    });
}

/**
 * Authorization server metadata (RFC 8414) where clients look for it: the issuer is
 * {PUBLIC_URL}/api/auth, so the path-inserted form; the bare form for clients that skip the path.
 * Public documents, readable from any origin.
 */
export function authServerMetadataRoutes(auth: Auth) {
  const app = new Hono();
  const serve = async (req: Request) => {
    const url = new URL(req.url);
    const res = await auth.handler(
      new Request(`${url.origin}/api/auth/.well-known/oauth-authorization-server`, { method: "GET", headers: req.headers }),
    );
    if (!res.ok) return res;
    // Introspection is not offered (tokens are checked inside the platform), so it is not advertised.
    const { introspection_endpoint: _introspection, ...metadata } = (await res.json()) as Record<string, unknown>;
    return Response.json(metadata, {
      headers: { "Access-Control-Allow-Origin": "*", "Cache-Control": res.headers.get("cache-control") ?? "public, max-age=300" },
    });
  };
  for (const path of ["/.well-known/oauth-authorization-server/api/auth", "/.well-known/oauth-authorization-server"]) {
    app.get(path, (c) => serve(c.req.raw));
    app.options(
      path,
      () =>
        new Response(null, {
          status: 204,
          headers: { "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET", "Access-Control-Allow-Headers": "*" },
        }),
    );
  }
  return app;
}

/** The endpoints OAuth clients call themselves (no cookies): browser-based clients may call them from any origin. */
export const OAUTH_CLIENT_ENDPOINT = /^\/api\/auth\/oauth2\/(token|register|revoke)$/;

/** CORS for the client endpoints (without credentials): a preflight is answered here, the answer carries the header. */
export function oauthClientCors(): MiddlewareHandler {
  return async (c, next) => {
    if (!OAUTH_CLIENT_ENDPOINT.test(c.req.path)) return next();
    if (c.req.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Allow-Methods": "POST",
          "Access-Control-Allow-Headers": "authorization, content-type, dpop",
          "Access-Control-Max-Age": "600",
        },
      });
    }
    await next();
    c.res.headers.set("Access-Control-Allow-Origin", "*");
  };
}
