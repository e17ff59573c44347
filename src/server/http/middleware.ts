import { randomBytes, randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { Config } from "../config.js";
import type { Viewer } from "../features/auth/viewer.js";
import type { Logger } from "../log.js";

export type AppEnv = {
  Variables: {
    requestId: string;
    cspNonce: string;
    viewer: Viewer | null;
    /** where a form of this page may send the browser besides this site (a page's loader adds the OAuth client it answers) */
    formAction?: string[];
  };
};

export function requestContext(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming && /^[\w-]{8,64}$/.test(incoming) ? incoming : randomUUID();
    c.set("requestId", id);
    c.set("cspNonce", randomBytes(16).toString("base64"));
    const started = performance.now();
    await next();
    c.header("X-Request-Id", id);
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const path = new URL(c.req.url).pathname;
    if (!path.startsWith("/assets/")) log.info({ requestId: id, method: c.req.method, path, status: c.res.status, ms }, "request");
  };
}

/**
 * Where forms may lead the browser besides this site: a form without JavaScript is answered with a
 * redirect, and browsers hold that redirect to the page's form-action too. GitHub's sign-in and
 * Stripe's checkout, when configured, are the only fixed ones.
 */
function fixedFormActions(config: Config): string[] {
  const out: string[] = [];
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET) out.push(new URL(config.GITHUB_OAUTH_URL).origin);
  if (config.STRIPE_SECRET_KEY) out.push("https://checkout.stripe.com");
  return out;
}

/** A CSP source for a redirect target: its origin, or its scheme alone for an app's own scheme (cursor:). Null for anything else. */
export function formActionSource(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") return u.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) && !/^(javascript|data|vbscript|blob|file):$/.test(u.protocol) ? u.protocol : null;
  } catch {
    return null;
  }
}

export function securityHeaders(config: Config, opts: { dev: boolean }): MiddlewareHandler<AppEnv> {
  const fixed = fixedFormActions(config);
  return async (c, next) => {
    await next();
    const formAction = ["'self'", ...fixed, ...(c.get("formAction") ?? [])].join(" ");
    const nonce = c.get("cspNonce");
    // Scripts only from our origin or carrying this response's nonce: no 'unsafe-inline' scripts.
    // Vite's dev server injects its own inline scripts, so dev mode relaxes this.
    const scriptSrc = opts.dev ? "'self' 'unsafe-inline'" : `'self' 'nonce-${nonce}'`;
    const connectSrc = opts.dev ? "'self' ws: wss:" : "'self'";
    c.header(
      "Content-Security-Policy",
      [
        "default-src 'self'",
        `script-src ${scriptSrc}`,
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: https:",
        // The playground plays audio a server returned (base64, as a data: URL; never a script).
        "media-src 'self' data:",
        "font-src 'self' data:",
        `connect-src ${connectSrc}`,
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
        `form-action ${formAction}`,
      ].join("; "),
    );
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "strict-origin-when-cross-origin");
    c.header("X-Frame-Options", "DENY");
    if (config.PUBLIC_URL.startsWith("https://")) c.header("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
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
