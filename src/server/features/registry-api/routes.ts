import { createRoute, z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { getVersion, listRegistry, listVersions } from "./service.js";

// The official MCP Registry's read API (v0.1), so registry clients can use this instance.
const serverResponse = z.object({
  server: z.object({ name: z.string(), description: z.string(), version: z.string() }).passthrough(),
  _meta: z.record(z.string(), z.unknown()),
});
const serverList = z.object({
  servers: z.array(serverResponse),
  metadata: z.object({ count: z.number(), nextCursor: z.string().optional() }),
});
const nameParam = z.object({ serverName: z.string().min(3).max(200) });

const list = createRoute({
  method: "get",
  path: "/servers",
  tags: ["registry v0.1"],
  summary: "List servers (official MCP Registry API)",
  request: {
    query: z.object({
      cursor: z.string().max(400).optional(),
      limit: z.coerce.number().int().min(1).max(100).default(30),
      search: z.string().max(200).optional(),
      updated_since: z.string().max(64).optional(),
      version: z.string().max(255).optional(),
      include_deleted: z.string().optional(),
    }),
  },
  responses: {
    200: { content: { "application/json": { schema: serverList } }, description: "One page" },
    400: jsonError("Bad parameters"),
  },
});

const versions = createRoute({
  method: "get",
  path: "/servers/{serverName}/versions",
  tags: ["registry v0.1"],
  summary: "All versions of a server",
  request: { params: nameParam },
  responses: {
    200: { content: { "application/json": { schema: serverList } }, description: "Versions" },
    404: jsonError("Server not found"),
  },
});

const version = createRoute({
  method: "get",
  path: "/servers/{serverName}/versions/{version}",
  tags: ["registry v0.1"],
  summary: "One version of a server ('latest' for the latest)",
  request: { params: nameParam.extend({ version: z.string().min(1).max(255) }) },
  responses: {
    200: { content: { "application/json": { schema: serverResponse } }, description: "The server" },
    404: jsonError("Server or version not found"),
  },
});

export function registryRoutes(deps: { db: Db }) {
  return apiRouter()
    .openapi(list, async (c) => c.json(await listRegistry(deps.db, c.req.valid("query")), 200))
    .openapi(versions, async (c) => c.json(await listVersions(deps.db, c.req.valid("param").serverName), 200))
    .openapi(version, async (c) => {
      const p = c.req.valid("param");
      return c.json(await getVersion(deps.db, p.serverName, p.version), 200);
    });
}
