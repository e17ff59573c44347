// The app's own middleware and the variables they set (AppEnv): the request's id and log line, the
// Origin check and the refusal of NUL characters. The security headers are security-headers.ts.
import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { SecureHeadersVariables } from "hono/secure-headers";
import type { Config } from "../config.js";
import type { Viewer } from "../features/auth/viewer.js";
import type { Logger } from "../log.js";

/** A handler's word to the audit trail about what it just changed. */
export interface AuditNote {
  orgId?: string | null;
  target?: string;
  detail?: Record<string, unknown>;
}

export type AppEnv = {
  Variables: SecureHeadersVariables & {
    requestId: string;
    cspNonce: string;
    viewer: Viewer | null;
    /** where a form of this page may send the browser besides this site (a page's loader adds the OAuth client it answers) */
    formAction?: string[];
    /** what a handler adds to its request's audit row (http/audit-trail.ts): the organisation, a name, safe details */
    audit?: AuditNote;
  };
};

/**
 * A header on the answer a handler already made. Hono's c.header() then rebuilds the answer
 * around its body as a stream, which took the Node adapter off its direct write for every
 * response (~15% of a search's CPU in a profile); the answer's own headers take it in place.
 * A response whose headers are immutable (one fetched from elsewhere) goes the long way.
 */
export function setAnswerHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

// Not Hono's requestId: it would take an incoming id of any length up to its limit, '=' included
// (here: 8 to 64 of [\w-]), and sets its header before the handler runs, so an answer the handler
// builds itself (a page, better-auth's) would go without it. Set after the handler, it is on every answer.
export function requestContext(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming && /^[\w-]{8,64}$/.test(incoming) ? incoming : randomUUID();
    c.set("requestId", id);
    const started = performance.now();
    await next();
    setAnswerHeader(c, "X-Request-Id", id);
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const path = new URL(c.req.url).pathname;
    if (!path.startsWith("/assets/")) log.info({ requestId: id, method: c.req.method, path, status: c.res.status, ms }, "request");
  };
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

// A state-changing request that names a foreign Origin is refused (CSRF). Requests without an
// Origin (curl, server-to-server with an API key) pass; cookie-bound rules live in the auth layer.
export function originCheck(config: Config): MiddlewareHandler<AppEnv> {
  const allowed = new Set(config.allowedOrigins);
  return async (c, next) => {
    if (!SAFE.has(c.req.method)) {
      const origin = c.req.header("origin");
      if (origin && origin !== "null" && !allowed.has(origin)) {
        return c.json({ error: "Cross-origin request refused", code: "forbidden" }, 403);
      }
      if (origin === "null") return c.json({ error: "Cross-origin request refused", code: "forbidden" }, 403);
    }
    await next();
  };
}

export const NUL_TEXT = "Text may not contain NUL characters";

const hasNul = (v: unknown): boolean =>
  typeof v === "string"
    ? v.includes("\0")
    : Array.isArray(v)
      ? v.some(hasNul)
      : v !== null && typeof v === "object"
        ? Object.values(v).some(hasNul)
        : false;

/**
 * PostgreSQL cannot store a NUL character in text, so one in a path, a query or a body would
 * fail deep inside a query as a 500. Refused where it enters, for every route (pages, the API,
 * the registry API and better-auth's endpoints alike), with a 400.
 */
export function refuseNul(): MiddlewareHandler<AppEnv> {
  const refuse = (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => c.json({ error: NUL_TEXT, code: "validation_failed" }, 400);
  return async (c, next) => {
    if (/%00/.test(c.req.url)) return refuse(c);
    const type = c.req.header("content-type") ?? "";
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && /json|x-www-form-urlencoded/i.test(type)) {
      const text = await c.req.raw.clone().text();
      if (text.includes("\0")) return refuse(c);
      if (/json/i.test(type) && /\\u0000/i.test(text)) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined; // not JSON: the route says so
        }
        if (hasNul(body)) return refuse(c);
      } else if (/x-www-form-urlencoded/i.test(type) && /%00/.test(text)) {
        return refuse(c);
      }
    }
    await next();
  };
}
