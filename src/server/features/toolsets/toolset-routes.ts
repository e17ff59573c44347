import { createRoute, z } from "@hono/zod-openapi";
import { TOOLSET_TEXT, toolsetInput, toolsetView } from "~/shared/toolsets.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { bearer, idParams, viewerOf } from "../deployments/route-parts.js";
import { deploymentOrg, type DeploymentDeps } from "../deployments/service.js";
import { createToolset, deleteToolset, listToolsets, updateToolset, viewToolset } from "./toolsets.js";

// /api/toolsets: several of a user's deployments and connections behind one URL (toolsets.ts). A
// toolset's controls (restart, tools, definitions, log) are a deployment's, under /api/deployments/{id}.

const answer = z.object({ success: z.literal(true), message: z.string(), toolset: toolsetView });

const createRouteDef = createRoute({
  method: "post",
  path: "/toolsets",
  tags: ["toolsets"],
  summary:
    "Combine your deployments and connections behind one URL: each member's tools appear as prefix_tool (the prefix defaults to its short name), its resources as prefix+uri",
  security: bearer,
  request: { body: { required: true, content: { "application/json": { schema: toolsetInput } } } },
  responses: {
    202: { content: { "application/json": { schema: answer } }, description: "Starting (poll its status)" },
    400: jsonError("A bad name or prefix, no member, a member twice, or a toolset as a member"),
    401: jsonError("Not signed in"),
    403: jsonError("Too many toolsets, or a member of `owner` who may not make one for it"),
    404: jsonError("A member that is not a deployment or connection of the toolset's owner, or no organisation `owner` of yours"),
    409: jsonError("Two members with one prefix, or a toolset of that name"),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/toolsets",
  tags: ["toolsets"],
  summary: "Your toolsets and your organisations', with their members",
  security: bearer,
  responses: {
    200: { content: { "application/json": { schema: z.array(toolsetView) } }, description: "Your toolsets" },
    401: jsonError("Not signed in"),
  },
});

const oneRoute = createRoute({
  method: "get",
  path: "/toolsets/{id}",
  tags: ["toolsets"],
  summary: "One of your toolsets, or one of your organisations'",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: { content: { "application/json": { schema: toolsetView } }, description: "The toolset" },
    401: jsonError("Not signed in"),
    404: jsonError("No such toolset of yours"),
  },
});

const updateRoute = createRoute({
  method: "put",
  path: "/toolsets/{id}",
  tags: ["toolsets"],
  summary: "New members, prefixes or tool choices: the toolset restarts with them in place (same URL, keys, request log)",
  security: bearer,
  request: { params: idParams, body: { required: true, content: { "application/json": { schema: toolsetInput } } } },
  responses: {
    202: { content: { "application/json": { schema: answer } }, description: "Restarting" },
    400: jsonError("A bad prefix, no member, a member twice, a toolset as a member, or another name"),
    401: jsonError("Not signed in"),
    403: jsonError("An organisation's toolset, and a member who may not change it"),
    404: jsonError("No such toolset of yours, or a member that is not its owner's"),
    409: jsonError("Two members with one prefix"),
    429: jsonError("Too many restarts of this toolset"),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/toolsets/{id}",
  tags: ["toolsets"],
  summary: "Remove a toolset: its URL and credential stop working; its members are not touched",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string() }) } },
      description: "Removed",
    },
    401: jsonError("Not signed in"),
    403: jsonError("An organisation's toolset, and a member who may not change it"),
    404: jsonError("No such toolset of yours"),
  },
});

export function toolsetRoutes(deps: DeploymentDeps) {
  return apiRouter()
    .openapi(createRouteDef, async (c) => {
      const toolset = await createToolset(deps, viewerOf(c), c.req.valid("json"));
      // Made as an organisation: the row is in its audit log too.
      const orgId = await deploymentOrg(deps.db, toolset.id);
      if (orgId) c.set("audit", { orgId });
      return c.json({ success: true as const, message: TOOLSET_TEXT.created, toolset }, 202);
    })
    .openapi(listRoute, async (c) => c.json(await listToolsets(deps, viewerOf(c)), 200))
    .openapi(oneRoute, async (c) => c.json(await viewToolset(deps, viewerOf(c), c.req.valid("param").id), 200))
    .openapi(updateRoute, async (c) => {
      const toolset = await updateToolset(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json"));
      return c.json({ success: true as const, message: TOOLSET_TEXT.saved, toolset }, 202);
    })
    .openapi(deleteRoute, async (c) => {
      await deleteToolset(deps, viewerOf(c), c.req.valid("param").id);
      return c.json({ success: true as const, message: TOOLSET_TEXT.removed }, 200);
    });
}
