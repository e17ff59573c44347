import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Database } from "../db/client.js";
import { createAuth } from "../features/auth/auth.js";
import { catalogRoutes } from "../features/catalog/routes.js";
import { submissionRoutes } from "../features/catalog/submission-routes.js";
import { syncRoutes } from "../features/registry-api/sync-routes.js";
import { namespaceFor } from "../features/registry-api/format.js";
import { registryRoutes } from "../features/registry-api/routes.js";
import { authRoutes } from "../features/auth/routes.js";
import { getViewer } from "../features/profile/viewer.js";
import { accountHooks } from "../features/profile/provision.js";
import { oauthHooks, oauthPlugins } from "../features/oauth/plugin.js";
import { API_KEY_TEXT } from "../../shared/publishers.js";
import { apiKeyInQuery, isExpired, keyOwner } from "../features/api-keys/api-keys.js";
import { keyRule } from "../features/api-keys/key-policy.js";
import { apiKeyRoutes } from "../features/api-keys/routes.js";
import { publisherRoutes } from "../features/publishers/routes.js";
import { KeyRevocations } from "../features/api-keys/revocations.js";
import { revokeGrantsOf } from "../features/connections/connections.js";
import { clientDocument, clientDocumentPath } from "../features/connections/upstream-oauth.js";
import { forgetResource } from "../features/oauth/custom-resources.js";
import { deploymentResources } from "../features/oauth/index.js";
import { listingReview } from "../features/deployments/checks/review.js";
import { connectionRoutes } from "../features/connections/connection-routes.js";
import { deploymentRoutes } from "../features/deployments/routes.js";
import { toolsetRoutes } from "../features/toolsets/toolset-routes.js";
import { requestLogRoutes } from "../features/request-log/routes.js";
import { alertRoutes } from "../features/alerts/routes.js";
import { Alerts } from "../features/alerts/service.js";
import { txtLookup } from "../features/domains/dns.js";
import { domainRoutes } from "../features/domains/routes.js";
import { Domains } from "../features/domains/service.js";
import { planOf, proUserIds } from "../features/billing/plan.js";
import { billingRoutes } from "../features/billing/routes.js";
import { Billing } from "../features/billing/service.js";
import { healthRoutes } from "../features/health/routes.js";
import { authServerMetadataRoutes, connectedAppRoutes, OAUTH_CLIENT_ENDPOINT, oauthClientCors } from "../features/oauth/routes.js";
import { createMailer } from "../features/mail/mailer.js";
import { outboxRoutes } from "../features/mail/routes.js";
import { profileRoutes } from "../features/profile/routes.js";
import { waitlistRoutes } from "../features/waitlist/routes.js";
import { orgRoutes } from "../features/orgs/routes.js";
import { organizationHooks } from "../features/orgs/plugin-hooks.js";
import { beforeAccountDeleted } from "../features/orgs/service.js";
import { auditRoutes } from "../features/audit/routes.js";
import { AuditRetention } from "../features/audit/retention.js";
import { auditTrail } from "./audit-trail.js";
import { toErrorResponse } from "./error-map.js";
import { apiRouter } from "./openapi.js";
import { originCheck, refuseNul, requestContext, type AppEnv } from "./middleware.js";
import { securityHeaders } from "./security-headers.js";
import type { AppDeps, Services } from "./deps.js";
import { pagesHandler } from "./pages.js";
import { PgRateLimiter } from "./rate-limit.js";

export type { AppDeps, Services };

export function createServices(deps: AppDeps): Services {
  const { config, log } = deps;
  const mailer =
    deps.mailer ??
    createMailer({
      smtpUrl: config.SMTP_URL,
      from: config.MAIL_FROM ?? `${config.SITE_NAME} <no-reply@${new URL(config.PUBLIC_URL).hostname}>`,
      log,
    });
  // Revocations reach every process of the cluster through the bus; rate limits are counted in
  // the database, so every web process shares them.
  const revocations = new KeyRevocations(deps.bus);
  const db = deps.database.db;
  const auth = createAuth(
    { config, db, mailer, log, secret: deps.secret, revocations },
    {
      plugins: oauthPlugins({ config, db }),
      hooks: oauthHooks({ config, db, revocations }),
      accounts: accountHooks(db, config.ADMIN_EMAILS),
      organizations: organizationHooks({ db, revocations }),
    },
  );
  const billing = new Billing({ db, config, log, hosting: deps.deployments });
  const alerts = new Alerts({
    db,
    log,
    mailer,
    config,
    proUsers: () => proUserIds(db),
    isPro: async (userId) => (await planOf(db, userId)).id === "pro",
  });
  const domains = new Domains({
    db,
    log,
    config,
    txt: txtLookup(config.CUSTOM_DOMAIN_RESOLVERS),
    isPro: async (userId) => (await planOf(db, userId)).id === "pro",
    proUsers: () => proUserIds(db),
    forgetResource: async (identifier) => {
      await forgetResource(db, identifier);
    },
  });
  const auditRetention = new AuditRetention({
    db,
    log,
    days: config.AUDIT_RETENTION_DAYS,
    proDays: config.AUDIT_RETENTION_DAYS_PRO,
    proUsers: () => proUserIds(db),
  });
  return { auth, mailer, limiter: new PgRateLimiter(db), billing, revocations, alerts, domains, auditRetention };
}

export function createApi(deps: AppDeps, services: Services) {
  const db = deps.database.db;
  const api = apiRouter();
  // Every state-changing request that succeeds leaves its audit row (route-policy.ts names its action).
  api.use("*", auditTrail({ db, trustedProxyHops: deps.config.TRUST_PROXY_HOPS }));
  api.route("/", waitlistRoutes({ db }));
  // Stripe first: if it cannot be reached, nothing else has changed yet.
  const beforeDelete = async (userId: string) => {
    // Refused before anything is undone when the account alone owns an organisation with others in it.
    await beforeAccountDeleted(db, userId, async (accountId) => {
      await services.billing.endForDeletedAccount(accountId);
      await deps.deployments.stopAllOf(accountId);
    });
    await services.billing.endForDeletedAccount(userId);
    // Connections' OAuth tokens are revoked at their servers first, while the rows still hold them.
    await revokeGrantsOf({ db, config: deps.config, box: deps.box }, userId);
    await deps.deployments.stopAllOf(userId);
  };
  api.route("/", profileRoutes({ auth: services.auth, db, beforeDelete, revocations: services.revocations }));
  api.route("/", catalogRoutes({ db }));
  api.route(
    "/",
    submissionRoutes({
      db,
      namespace: namespaceFor(deps.config.PUBLIC_URL),
      review: listingReview({ allowFileGit: deps.config.GIT_ALLOW_FILE === "on" }),
      rejection: { mailer: services.mailer, log: deps.log, site: deps.config.SITE_NAME, publicUrl: deps.config.PUBLIC_URL },
    }),
  );
  if (deps.registrySync) api.route("/", syncRoutes({ db, sync: deps.registrySync, config: deps.config }));
  api.route("/", apiKeyRoutes({ db, revocations: services.revocations, servers: deps.keyServers }));
  api.route("/", publisherRoutes({ db }));
  api.route("/", connectedAppRoutes({ db, revocations: services.revocations }));
  api.route("/", billingRoutes(services.billing));
  const hosting = {
    db,
    config: deps.config,
    box: deps.box,
    lifecycle: deps.deployments,
    resources: deploymentResources(deps.config.PUBLIC_URL),
    bus: deps.bus,
    checks: deps.checks,
    restarts: services.limiter,
  };
  api.route("/", deploymentRoutes(hosting));
  api.route("/", connectionRoutes(hosting));
  api.route("/", toolsetRoutes(hosting));
  api.route("/", requestLogRoutes({ db }));
  api.route("/", alertRoutes(services.alerts));
  api.route("/", domainRoutes(services.domains));
  api.route(
    "/",
    orgRoutes({
      db,
      auth: services.auth,
      endPlan: (accountId) => services.billing.endForDeletedAccount(accountId),
      revocations: services.revocations,
    }),
  );
  api.route("/", auditRoutes({ db, retentionDays: deps.config.AUDIT_RETENTION_DAYS }));
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key (sb_...) from /servers/apikeys",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "cookieAuth", {
    type: "apiKey",
    in: "cookie",
    name: "better-auth.session_token",
  });
  api.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: `${deps.config.SITE_NAME} API`,
      version: "0.1.0",
      description: "Accounts (sign-up, sign-in, sessions, password reset) live under /api/auth, served by better-auth.",
    },
    servers: [{ url: `${deps.config.PUBLIC_URL}/api` }],
  });
  return api;
}

export function createApp(deps: AppDeps, services: Services = createServices(deps)) {
  const app = new Hono<AppEnv>();
  const db = deps.database.db;
  app.use(requestContext(deps.log));
  app.use(securityHeaders(deps.config, { dev: deps.dev ?? false }));
  // OAuth clients call their endpoints without cookies, browser-based ones from their own origin.
  const checkOrigin = originCheck(deps.config);
  app.use("/api/*", (c, next) => (OAUTH_CLIENT_ENDPOINT.test(c.req.path) ? next() : checkOrigin(c, next)));
  app.use("/api/auth/oauth2/*", oauthClientCors());
  // No API request needs more; a client streaming an endless body is cut off, not buffered.
  const limitBody = bodyLimit({
    maxSize: 1024 * 1024,
    onError: (c) => c.json({ error: "Request body too large (at most 1 MB)", code: "validation_failed" }, 413),
  });
  // A GET or HEAD with neither Content-Length nor Transfer-Encoding has no body (HTTP/1.1), so there
  // is nothing to limit; asking it for its body would build a whole fetch Request (~8% of a search's CPU).
  const bodiless = (c: Context) =>
    (c.req.method === "GET" || c.req.method === "HEAD") &&
    c.req.header("content-length") === undefined &&
    c.req.header("transfer-encoding") === undefined;
  app.use("/api/*", (c, next) => (bodiless(c) ? next() : limitBody(c, next)));
  app.use("*", refuseNul());
  // A write is answered once every process has learnt what it changed (a revoked key, a catalogue
  // entry), so the very next request, to whichever process, sees it (cluster/bus.ts, pg-bus.ts).
  app.use("*", (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : deps.bus.settle(next)));
  app.onError((err, c) => toErrorResponse(err, c, deps.log));

  app.route("/", healthRoutes({ pool: deps.database.pool }));
  if (deps.config.NODE_ENV !== "production") app.route("/", outboxRoutes(services.mailer));
  app.use("*", viewerMiddleware(db, services.auth));
  // Before better-auth's catch-all on /api/auth/*, so /api/auth/me and /api/auth/apikeys are ours.
  app.route("/api", createApi(deps, services));
  app.route(
    "/",
    authRoutes({
      auth: services.auth,
      db,
      limiter: services.limiter,
      rateLimit: deps.config.AUTH_RATE_LIMIT === "on",
      allowedOrigins: deps.config.allowedOrigins,
      trustedProxyHops: deps.config.TRUST_PROXY_HOPS,
    }),
  );
  app.route("/", authServerMetadataRoutes(services.auth));
  // Switchboard's client ID metadata document, for remote servers a connection signs in to (https only).
  app.get(clientDocumentPath, (c) => {
    const doc = clientDocument(deps.config.PUBLIC_URL);
    if (!doc) return c.json({ error: "Not found", code: "not_found" }, 404);
    c.header("Cache-Control", "public, max-age=3600");
    return c.json(doc);
  });
  app.route("/v0.1", registryRoutes({ db }));
  app.all("/v0.1/*", (c) => c.json({ error: "Not found", code: "not_found" }, 404));
  app.all("/api/*", (c) => c.json({ error: "Not found", code: "not_found" }, 404));
  // Page forms post to their route (they work without JavaScript); a body is at most 1 MB there too.
  // A page's GET skips the limit as the API's does: React Router then builds the only fetch Request.
  const limitPageBody = bodyLimit({ maxSize: 1024 * 1024, onError: (c) => c.text("Request body too large (at most 1 MB)", 413) });
  if (deps.pages) app.all("*", (c, next) => (bodiless(c) ? next() : limitPageBody(c, next)), pagesHandler(deps, services, app));
  return app;
}

/**
 * Who is asking: an API key (`Authorization: Bearer sb_...`, checked on every request) or the
 * browser session cookie. A bad key is refused outright rather than treated as anonymous, and a
 * key in an /api query string is refused whatever it is.
 */
function viewerMiddleware(db: Database["db"], auth: Services["auth"]): MiddlewareHandler<AppEnv> {
  const refuse = (c: Context<AppEnv>, error: string) =>
    c.json({ error, code: "unauthorized" }, 401, { "WWW-Authenticate": 'Bearer realm="api", error="invalid_token"' });
  // better-auth's own routes read the session themselves; only /api/auth/me, /apikeys and /connected-apps are ours.
  const betterAuthPath = (path: string) => path.startsWith("/api/auth/") && !/^\/api\/auth\/(me|apikeys|connected-apps)(\/|$)/.test(path);
  return async (c, next) => {
    if (c.req.path.startsWith("/api/") && apiKeyInQuery(new URL(c.req.url))) return refuse(c, API_KEY_TEXT.inQuery);
    if (betterAuthPath(c.req.path)) {
      // An API key never signs in, changes the account or answers a consent: those need a sign-in.
      if (/^bearer\s+sb_/i.test(c.req.header("authorization") ?? ""))
        return c.json({ error: API_KEY_TEXT.needsSignIn, code: "forbidden" }, 403);
      c.set("viewer", null);
      return next();
    }
    const authz = c.req.header("authorization");
    // Pages are for browsers: their viewer is the sign-in cookie's, never a key's.
    if (authz !== undefined && /^bearer(\s|$)/i.test(authz) && c.req.path.startsWith("/api/")) {
      const viewer = await keyOwner(db, authz.slice(6).trim());
      if (!viewer) return refuse(c, API_KEY_TEXT.invalid);
      if (isExpired(viewer.key)) return refuse(c, API_KEY_TEXT.expired);
      // What a key may do at all (key-policy.ts); which servers it reaches, the routes check.
      const rule = keyRule(c.req.method, c.req.path);
      if (rule === "session") return c.json({ error: API_KEY_TEXT.needsSignIn, code: "forbidden" }, 403);
      if (rule !== "public" && !viewer.key.scopes.includes(rule))
        return c.json({ error: API_KEY_TEXT.missingScope(rule), code: "forbidden", scope: rule }, 403);
      // A public route answers a key as it answers anyone: it opens nothing of its owner's there.
      c.set("viewer", rule === "public" ? null : viewer);
    } else {
      c.set("viewer", await getViewer(auth, db, c.req.raw.headers));
    }
    await next();
  };
}
