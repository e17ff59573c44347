import { createRoute, z } from "@hono/zod-openapi";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { requestLogPage, requestLogQuery, toolStat } from "~/shared/request-log.js";
import type { Db } from "../../db/client.js";
import { requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { listRequests, publicToolStats } from "./service.js";

const bearer: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];
const segment = z.string().min(1).max(200);

const requestsRoute = createRoute({
  method: "get",
  path: "/deployments/{id}/requests",
  tags: ["deployments"],
  summary: "Your deployment's latest requests, newest first (never their arguments or results)",
  security: bearer,
  request: { params: z.object({ id: z.string().min(1).max(100) }), query: requestLogQuery },
  responses: {
    200: {
      content: { "application/json": { schema: requestLogPage } },
      description: "Requests, and every method seen lately (for a filter menu)",
    },
    400: jsonError("Invalid filter or limit"),
    401: jsonError("Not signed in"),
    404: jsonError("No such deployment of yours"),
  },
});

const statsAnswer = {
  content: { "application/json": { schema: z.object({ tools: z.array(toolStat) }) } },
  description: "Per tool over the last 24 hours, over every deployment",
};

// Catalogue entries beside /mcp-servers/{id}/related; owned servers beside /servers/{owner}/{name}
// (a /servers/{id}/tool-stats would be read as the owned server "{id}/tool-stats").
const catalogStatsRoute = createRoute({
  method: "get",
  path: "/mcp-servers/{id}/tool-stats",
  tags: ["catalogue"],
  summary: "Calls, error rate and p50/p95 latency per tool, last 24 h (public; no user data)",
  request: { params: z.object({ id: segment }) },
  responses: { 200: statsAnswer, 404: jsonError("Unknown, pending or rejected") },
});

const ownedStatsRoute = createRoute({
  method: "get",
  path: "/servers/{owner}/{name}/tool-stats",
  tags: ["servers"],
  summary: "Calls, error rate and p50/p95 latency per tool of an owned server, last 24 h (public; no user data)",
  request: { params: z.object({ owner: segment, name: segment }) },
  responses: { 200: statsAnswer, 404: jsonError("No such server") },
});

export function requestLogRoutes(deps: { db: Db }) {
  const { db } = deps;
  return apiRouter()
    .openapi(requestsRoute, async (c) => {
      const viewer = requireViewer(c, DEPLOY_TEXT.mustLogin);
      return c.json(await listRequests(db, viewer, c.req.valid("param").id, c.req.valid("query")), 200);
    })
    .openapi(catalogStatsRoute, async (c) =>
      c.json({ tools: await publicToolStats(db, c.get("viewer"), { catalog: c.req.valid("param").id }) }, 200),
    )
    .openapi(ownedStatsRoute, async (c) => {
      const p = c.req.valid("param");
      return c.json({ tools: await publicToolStats(db, c.get("viewer"), { owned: `${p.owner}/${p.name}` }) }, 200);
    });
}
