// The security headers of every answer: the Content-Security-Policy with its per-request script
// nonce and the form-action a page may widen, and the fixed headers, set by Hono's secureHeaders.
import { randomFillSync } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { Config } from "../config.js";
import { setAnswerHeader, type AppEnv } from "./middleware.js";

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

/** Random bytes for 256 nonces at a time: one call into the CSPRNG per 256 answers, not one per answer. */
const pool = Buffer.alloc(16 * 256);
let poolAt = pool.length;

/** 16 bytes from the CSPRNG, base64: a response's script nonce. No bytes are ever given out twice. */
export function freshNonce(): string {
  if (poolAt >= pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const nonce = pool.toString("base64", poolAt, poolAt + 16);
  poolAt += 16;
  return nonce;
}

/** The policy's nonce source, made once per response (Hono's NONCE, with freshNonce's bytes). */
function nonceSource(c: Context): string {
  let nonce = c.get("secureHeadersNonce") as string | undefined;
  if (!nonce) c.set("secureHeadersNonce", (nonce = freshNonce()));
  return `'nonce-${nonce}'`;
}

export function securityHeaders(config: Config, opts: { dev: boolean }): MiddlewareHandler<AppEnv> {
  const fixed = fixedFormActions(config);
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      // Scripts only from our origin or carrying this response's nonce: no 'unsafe-inline' scripts.
      // Vite's dev server injects its own inline scripts, so dev mode relaxes this.
      scriptSrc: opts.dev ? ["'self'", "'unsafe-inline'"] : ["'self'", nonceSource],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", "data:", "https:"],
      // The playground plays audio a server returned (base64, as a data: URL; never a script).
      mediaSrc: ["'self'", "data:"],
      fontSrc: ["'self'", "data:"],
      connectSrc: opts.dev ? ["'self'", "ws:", "wss:"] : ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      frameAncestors: ["'none'"],
    },
    xContentTypeOptions: "nosniff",
    referrerPolicy: "strict-origin-when-cross-origin",
    xFrameOptions: "DENY",
    strictTransportSecurity: config.PUBLIC_URL.startsWith("https://") ? "max-age=31536000; includeSubDomains" : false,
    // Only the headers above: Hono's other defaults stay off.
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    removePoweredBy: false,
  });
  return async (c, next) => {
    await headers(c, async () => {
      // Hono made the nonce before the handler runs (in dev mode, no policy names one: the pages get a nonce all the same).
      c.set("cspNonce", c.get("secureHeadersNonce") ?? freshNonce());
      await next();
    });
    // form-action is kept by hand: Hono's secureHeaders computes the policy before the handler runs,
    // and a page's loader adds the OAuth client it answers to c.var.formAction while it runs.
    const formAction = ["'self'", ...fixed, ...(c.get("formAction") ?? [])].join(" ");
    setAnswerHeader(c, "Content-Security-Policy", `${c.res.headers.get("Content-Security-Policy")}; form-action ${formAction}`);
  };
}
