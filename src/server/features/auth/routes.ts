import { Hono, type Context } from "hono";
import type { HttpBindings } from "@hono/node-server";
import { AUTH_TEXT } from "~/shared/auth.js";
import type { Db } from "../../db/client.js";
import type { RateLimiter } from "../../http/rate-limit.js";
import { findUserByEmail } from "./repo.js";
import { CLIENT_IP_HEADER, type Auth } from "./auth.js";

type Rule = { limit: number; windowMs: number };
const MIN = 60_000;
// Per client IP and, where the body names one, per account (e-mail).
const RULES: Record<string, { ip: Rule; account?: Rule }> = {
  "/sign-in/email": { ip: { limit: 30, windowMs: 15 * MIN }, account: { limit: 10, windowMs: 15 * MIN } },
  "/sign-up/email": { ip: { limit: 20, windowMs: 60 * MIN }, account: { limit: 5, windowMs: 60 * MIN } },
  "/request-password-reset": { ip: { limit: 10, windowMs: 60 * MIN }, account: { limit: 5, windowMs: 60 * MIN } },
  "/reset-password": { ip: { limit: 20, windowMs: 60 * MIN } },
  "/send-verification-email": { ip: { limit: 10, windowMs: 60 * MIN }, account: { limit: 3, windowMs: 60 * MIN } },
  "/sign-in/social": { ip: { limit: 30, windowMs: 15 * MIN } },
  // The OAuth provider's endpoints (features/oauth): clients registering, people approving, tokens.
  "/oauth2/register": { ip: { limit: 30, windowMs: 15 * MIN } },
  "/oauth2/consent": { ip: { limit: 60, windowMs: 15 * MIN } },
  "/oauth2/token": { ip: { limit: 600, windowMs: 15 * MIN } },
  "/oauth2/revoke": { ip: { limit: 120, windowMs: 15 * MIN } },
};

// Of the OAuth provider's endpoints only the protocol's are reachable over HTTP; its client and
// consent management endpoints are not (Connected apps is ours: features/oauth/routes.ts).
const OAUTH_PUBLIC = new Set(["/oauth2/authorize", "/oauth2/consent", "/oauth2/token", "/oauth2/register", "/oauth2/revoke"]);

/**
 * The client's address for per-address limits. Behind load balancers (TRUST_PROXY_HOPS = how many
 * of them append to X-Forwarded-For) it is the address the outermost trusted one saw: counted
 * from the right, so whatever a client writes into the header itself is never trusted.
 */
export function clientIp(c: Context, trustedHops = 0): string {
  const env = c.env as Partial<HttpBindings> | undefined;
  const socket = env?.incoming?.socket?.remoteAddress ?? "local";
  if (trustedHops <= 0) return socket;
  const chain = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return chain.length >= trustedHops ? chain[chain.length - trustedHops]!.slice(0, 64) : socket;
}

/** A path as a router may read it: percent-decoded, repeated slashes as one. */
function squash(path: string): string {
  let p = path;
  try {
    p = decodeURIComponent(path);
  } catch {
    // not decodable: matched as written
  }
  return p.replace(/\/{2,}/g, "/");
}

function tooMany(c: Context, retryAfterSec: number) {
  c.header("Retry-After", String(retryAfterSec));
  return c.json({ error: AUTH_TEXT.tooManyAttempts(retryAfterSec), code: "rate_limited" }, 429);
}

const REDIRECT_FIELDS = ["callbackURL", "redirectTo", "errorCallbackURL", "newUserCallbackURL"];

/** Where better-auth may send a browser afterwards: our own paths or origins only. */
function safeTarget(value: unknown, allowed: readonly string[]): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value !== "string") return false;
  if (value.startsWith("/") && !value.startsWith("//") && !value.includes("\\")) return true;
  try {
    return allowed.includes(new URL(value).origin);
  } catch {
    return false;
  }
}

export function authRoutes(deps: {
  auth: Auth;
  db: Db;
  limiter: RateLimiter;
  rateLimit: boolean;
  allowedOrigins: readonly string[];
  trustedProxyHops?: number;
}) {
  const app = new Hono();
  app.all("/api/auth/*", async (c) => {
    const url = new URL(c.req.url);
    const path = url.pathname.slice("/api/auth".length);
    const ip = clientIp(c, deps.trustedProxyHops);
    if (/^\/(admin\/)?oauth2\//.test(path) && !OAUTH_PUBLIC.has(path)) return c.json({ error: "Not found", code: "not_found" }, 404);
    // Organisations are Switchboard's routes (/api/orgs, features/orgs): its roles, texts and audit log.
    if (/^\/organization(\/|$)/i.test(squash(path))) return c.json({ error: "Not found", code: "not_found" }, 404);
    let email: string | undefined;
    const body =
      c.req.method === "POST"
        ? ((await c.req.raw
            .clone()
            .json()
            .catch(() => null)) as Record<string, unknown> | null)
        : null;
    for (const f of REDIRECT_FIELDS) {
      if (!safeTarget(body?.[f], deps.allowedOrigins) || !safeTarget(url.searchParams.get(f) ?? undefined, deps.allowedOrigins)) {
        return c.json({ error: "Redirects may only lead to this site", code: "forbidden" }, 403);
      }
    }
    if (c.req.method === "POST" && RULES[path]) {
      if (body && typeof body.email === "string") email = body.email.trim().toLowerCase();
      if (deps.rateLimit) {
        const rule = RULES[path]!;
        const byIp = await deps.limiter.hit(`${path}|ip|${ip}`, rule.ip.limit, rule.ip.windowMs);
        if (!byIp.ok) return tooMany(c, byIp.retryAfterSec);
        if (rule.account && email) {
          const byAccount = await deps.limiter.hit(`${path}|acct|${email}`, rule.account.limit, rule.account.windowMs);
          if (!byAccount.ok) return tooMany(c, byAccount.retryAfterSec);
        }
      }
      // A person whose address is already registered is told to log in instead.
      if (path === "/sign-up/email" && email && (await findUserByEmail(deps.db, email))) {
        return c.json({ code: "USER_ALREADY_EXISTS", message: AUTH_TEXT.alreadyRegistered }, 422);
      }
    }
    // better-auth reads the client address from this header; never trust a client's copy.
    const headers = new Headers(c.req.raw.headers);
    headers.set(CLIENT_IP_HEADER, ip);
    const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
    const req = new Request(c.req.url, { method: c.req.method, headers, body: hasBody ? await c.req.raw.arrayBuffer() : undefined });
    return deps.auth.handler(req);
  });
  return app;
}
