import type { Context, Hono } from "hono";
import { createRequestHandler, type ServerBuild } from "react-router";
import { resultOf, type ApiAnswer, type ApiCall } from "../../shared/api-answer.js";
import { githubConfigured } from "../features/auth/auth.js";
import { withSetCookies } from "../features/auth/session.js";
import { getViewer } from "../features/profile/viewer.js";
import type { AppDeps, Services } from "./deps.js";
import type { AppEnv } from "./middleware.js";
import { formActionSource } from "./security-headers.js";

/** What a page's form may take with it to the API: the visitor's cookies and who they are, nothing else. */
const FORWARDED = ["cookie", "user-agent", "accept-language", "x-forwarded-for", "x-request-id"];
/** A form's call to the API answers within this, or the form says it timed out (the spec's 20 s). */
const API_TIMEOUT_MS = 20_000;

/**
 * The pages' one way to change anything: a route action calls the REST API in this process, as
 * the browser would, with the visitor's cookies. So a form without JavaScript passes the very
 * checks the API makes (who may do what, plan limits, rate limits, Origin, the error map) and
 * nothing about a rule lives twice. Set-Cookie headers come back for the action to pass on.
 */
export function apiCaller(app: Hono<AppEnv>, c: Context<AppEnv>, origin: string): ApiCall {
  return async <T>(method: string, path: string, body?: unknown, opts: { timeoutMs?: number } = {}): Promise<ApiAnswer<T>> => {
    const headers = new Headers({ origin, accept: "application/json", "x-request-id": c.get("requestId") });
    for (const h of FORWARDED) {
      const v = c.req.header(h);
      if (v !== undefined && h !== "x-request-id") headers.set(h, v);
    }
    if (body !== undefined) headers.set("content-type", "application/json");
    const req = new Request(new URL(path, c.req.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), opts.timeoutMs ?? API_TIMEOUT_MS)));
    try {
      const res = await Promise.race([app.fetch(req, c.env), timeout]);
      if (res === "timeout") return { ok: false, status: 0, timedOut: true, cookies: [] };
      return { ...(await resultOf<T>(res)), cookies: res.headers.getSetCookie() };
    } finally {
      clearTimeout(timer);
    }
  };
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

// Everything that is not an API route is a page rendered by React Router (SSR).
export function pagesHandler(deps: AppDeps, services: Services, app: Hono<AppEnv>) {
  const load = deps.pages!;
  let handler: ((req: Request, ctx: unknown) => Promise<Response>) | undefined;
  let built: ServerBuild | undefined;
  const github = githubConfigured(deps.config);
  const allowed = new Set(deps.config.allowedOrigins);
  const ownOrigin = new URL(deps.config.PUBLIC_URL).origin;
  return async (c: Context<AppEnv>) => {
    // A form posted from another site (CSRF) is refused before any action runs, as on the API.
    if (!SAFE.has(c.req.method)) {
      const origin = c.req.header("origin");
      if (origin !== undefined && !allowed.has(origin)) return c.text("Cross-origin request refused", 403);
    }
    const build = await load();
    if (!handler || build !== built) {
      built = build;
      // The build's own React Router where it exports it (entry.server.tsx): one copy per process.
      const create =
        (build.entry.module as { createRequestHandler?: typeof createRequestHandler }).createRequestHandler ?? createRequestHandler;
      handler = create(build, deps.dev ? "development" : "production") as typeof handler;
    }
    const origin = c.req.header("origin");
    const context = {
      config: deps.config,
      db: deps.database.db,
      auth: services.auth,
      viewer: c.get("viewer"),
      githubEnabled: github,
      cspNonce: c.get("cspNonce"),
      requestId: c.get("requestId"),
      sandbox: deps.deployments.sandbox,
      api: apiCaller(app, c, origin && allowed.has(origin) ? origin : ownOrigin),
      allowFormAction: (url: string) => {
        const source = formActionSource(url);
        if (source) c.set("formAction", [...(c.get("formAction") ?? []), source]);
      },
      // After an action changed who the viewer is (a new username), the page it renders shows them anew.
      refreshViewer: async (setCookies: string[] = []) => {
        if (c.get("viewer")?.viaApiKey) return;
        const headers = new Headers(c.req.raw.headers);
        headers.set("cookie", withSetCookies(c.req.header("cookie") ?? "", setCookies));
        context.viewer = await getViewer(services.auth, deps.database.db, headers);
      },
    };
    return handler!(c.req.raw, context);
  };
}
