import { createRoute, z } from "@hono/zod-openapi";
import { catalogServer, listQuery, pagination } from "~/shared/catalog.js";
import type { Db } from "../../db/client.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { getRelated, getServer, listServers, toCatalogServer } from "./service.js";

const idParam = z.object({ id: z.string().min(1).max(200) });

const list = createRoute({
  method: "get",
  path: "/mcp-servers",
  tags: ["catalogue"],
  summary: "Search the directory (approved entries)",
  request: { query: listQuery },
  responses: {
    200: {
      content: {
        "application/json": {
          schema: z.object({
            data: z.array(catalogServer),
            pagination,
            nextCursor: z.string().nullable().describe("The next page of this listing, in the order it began with (pass it as `cursor`)"),
          }),
        },
      },
      description: "One page",
    },
    400: jsonError("Invalid query"),
  },
});

const one = createRoute({
  method: "get",
  path: "/mcp-servers/{id}",
  tags: ["catalogue"],
  summary: "One catalogue entry",
  request: { params: idParam },
  responses: {
    200: { content: { "application/json": { schema: catalogServer } }, description: "The entry" },
    404: jsonError("Unknown, pending or rejected"),
  },
});

const related = createRoute({
  method: "get",
  path: "/mcp-servers/{id}/related",
  tags: ["catalogue"],
  summary: "Up to 6 related entries",
  request: { params: idParam },
  responses: {
    200: { content: { "application/json": { schema: z.object({ data: z.array(catalogServer) }) } }, description: "Related entries" },
    404: jsonError("Unknown, pending or rejected"),
  },
});

export function catalogRoutes(deps: { db: Db }) {
  return apiRouter()
    .openapi(list, async (c) => c.json(await listServers(deps.db, c.req.valid("query")), 200))
    .openapi(one, async (c) => c.json(toCatalogServer(await getServer(deps.db, c.req.valid("param").id, c.get("viewer"))), 200))
    .openapi(related, async (c) => c.json({ data: await getRelated(deps.db, c.req.valid("param").id, c.get("viewer")) }, 200));
}
