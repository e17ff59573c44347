import type { MiddlewareHandler } from "hono";
import type { Db } from "../db/client.js";
import { clientIp } from "../features/auth/routes.js";
import { recordAudit } from "../features/audit/service.js";
import { deploymentOrg } from "../features/deployments/service.js";
import type { AppEnv } from "./middleware.js";
import { policyOf } from "./route-policy.js";

// The audit log's writer for the REST API: after a state-changing request succeeds, one row of who
// (the viewer, and whether by key), what (route-policy.ts's action), to what (the path's target
// and what the handler noted), when and from where. A body is never stored: only the names a
// route's policy picks from it.

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
/** Routes whose {id} is a deployment's row (a connection and a toolset are deployments' rows too). */
const OWNED = /^\/api\/(?:deployments|connections|toolsets)\/([0-9a-f-]{36})(?:\/|$)/;

export function auditTrail(deps: { db: Db; trustedProxyHops?: number }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A deployment's, connection's or toolset's route: the organisation that owns it, read before the
    // handler runs (a Stop removes the row), so its admins see the row in its audit log.
    const owned = SAFE.has(c.req.method) ? null : OWNED.exec(c.req.path);
    const owning = owned ? await deploymentOrg(deps.db, owned[1]!) : undefined;
    await next();
    if (SAFE.has(c.req.method) || c.res.status >= 400) return;
    const policy = policyOf(c.req.method, c.req.routePath);
    if (!policy?.audit) return;
    const viewer = c.get("viewer");
    const note = c.get("audit");
    let detail: Record<string, unknown> = {};
    if (policy.detail) {
      const body = await c.req.json().catch(() => null);
      if (body && typeof body === "object" && !Array.isArray(body)) detail = policy.detail(body as Record<string, unknown>);
    }
    const params = c.req.param() as Record<string, string>;
    await recordAudit(deps.db, {
      actorId: viewer?.id ?? null,
      actorName: viewer?.username ?? "",
      via: viewer?.viaApiKey ? "api_key" : viewer ? "session" : "anonymous",
      orgId: note?.orgId ?? owning ?? null,
      action: policy.audit,
      targetKind: policy.audit.split(".")[0]!,
      target: (note?.target ?? (policy.target ? params[policy.target] : "") ?? "").slice(0, 300),
      detail: { ...detail, ...note?.detail },
      ip: clientIp(c, deps.trustedProxyHops).slice(0, 64),
    });
  };
}
