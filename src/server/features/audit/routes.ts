import { createRoute } from "@hono/zod-openapi";
import { auditPage as auditPageSchema, auditQuery } from "~/shared/audit.js";
import { requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { auditEntries, auditPage, csvHeader, csvLine, EXPORT_MAX, jsonLine, orgSlugs, toEntry, type AuditDeps } from "./service.js";

// /api/audit: the audit log a person may see (service.ts), a page at a time or exported whole.

const auth: Record<string, string[]>[] = [{ cookieAuth: [] }];

const listRoute = createRoute({
  method: "get",
  path: "/audit",
  tags: ["audit"],
  summary:
    "Audit log entries, newest first: yours, an organisation's (scope=<slug>, its owners and admins) or everything (scope=all, site admins); format=csv or jsonl exports every entry the filters match",
  security: auth,
  request: { query: auditQuery },
  responses: {
    200: {
      content: {
        "application/json": { schema: auditPageSchema },
        "text/csv": { schema: { type: "string" } },
        "application/jsonl": { schema: { type: "string" } },
      },
      description: "A page of entries, or the export",
    },
    400: jsonError("A bad filter"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an owner or admin of that organisation, or not a site admin"),
    404: jsonError("No such organisation of yours"),
  },
});

export function auditRoutes(deps: AuditDeps) {
  const app = apiRouter();
  app.openapi(listRoute, async (c) => {
    const viewer = requireViewer(c);
    const q = c.req.valid("query");
    if (!q.format || q.format === "json") return c.json(await auditPage(deps, viewer, q), 200);
    const rows = await auditEntries(deps, viewer, { ...q, before: q.before }, EXPORT_MAX);
    const slugs = await orgSlugs(deps.db, viewer, rows);
    const entries = rows.map((r) => toEntry(r, slugs));
    const csv = q.format === "csv";
    const body = csv ? csvHeader() + entries.map(csvLine).join("") : entries.map(jsonLine).join("");
    const name = `audit-${q.scope ?? "mine"}-${new Date().toISOString().slice(0, 10)}.${csv ? "csv" : "jsonl"}`.replace(/[^\w.-]/g, "_");
    return c.body(body, 200, {
      "Content-Type": csv ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "no-store",
    }) as never;
  });
  return app;
}
