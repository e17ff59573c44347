import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/middleware.js";
import { DEPLOY_TEXT, deployInput, deploymentView } from "~/shared/deployments.js";
import { CHECK_TEXT } from "~/shared/catalog.js";
import { AppError } from "../../errors.js";
import { requireAdmin } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { controlRoutes } from "./control-routes.js";
import { definitionRoutes } from "./definitions/definition-routes.js";
import { deploy } from "./deploy.js";
import { stopDeployment } from "./owner-actions.js";
import { bearer, idParams, viewerOf } from "./route-parts.js";
import { listMyDeployments, type DeploymentDeps } from "./service.js";

// /api/deploy/* and /api/deployments: deploying, listing and stopping deployments, and admins'
// 'Check now'. A deployment's controls are control-routes.ts; its definitions' review is
// definition-routes.ts.

const segment = z.string().min(1).max(200);
const deployAnswer = z.object({ success: z.literal(true), message: z.string(), deploymentInfo: deploymentView });

const deployRoute = (path: string, params: z.ZodObject<Record<string, z.ZodString>>) =>
  createRoute({
    method: "post",
    path,
    tags: ["deployments"],
    summary: "Deploy a server with your own keys; it starts in the background (poll its status)",
    security: bearer,
    request: { params, body: { required: true, content: { "application/json": { schema: deployInput } } } },
    responses: {
      202: { content: { "application/json": { schema: deployAnswer } }, description: "Queued" },
      400: jsonError("Missing keys, no source, or an npx command / repository URL that is refused"),
      401: jsonError("Not signed in"),
      403: jsonError("Another user's server, or a plan limit"),
      404: jsonError("No such server"),
      409: jsonError("Already deployed"),
    },
  });

const listRoute = createRoute({
  method: "get",
  path: "/deployments",
  tags: ["deployments"],
  summary: "Your deployments",
  security: bearer,
  responses: {
    200: { content: { "application/json": { schema: z.array(deploymentView) } }, description: "Your deployments" },
    401: jsonError("Not signed in"),
  },
});

const byServerRoute = (path: string, params: z.ZodObject<Record<string, z.ZodString>>) =>
  createRoute({
    method: "get",
    path,
    tags: ["deployments"],
    summary: "Your deployments of one server, and your organisations' (owner: one organisation's slug, or empty for your own only)",
    security: bearer,
    request: { params, query: z.object({ owner: z.string().max(39).optional() }) },
    responses: {
      200: { content: { "application/json": { schema: z.object({ deployments: z.array(deploymentView) }) } }, description: "Deployments" },
      401: jsonError("Not signed in"),
    },
  });

const checkRoute = createRoute({
  method: "post",
  path: "/admin/mcp-servers/{id}/check",
  tags: ["admin"],
  summary:
    "Check now: the platform runs the catalogue entry itself (placeholder keys) and keeps what it lists as the entry's candidate listing",
  security: bearer,
  request: { params: idParams },
  responses: {
    202: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string() }) } },
      description: "Started",
    },
    400: jsonError("It cannot run here"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an admin"),
    404: jsonError("No such entry"),
    409: jsonError("A check is already running"),
  },
});

const stopRoute = createRoute({
  method: "delete",
  path: "/deployments/{id}",
  tags: ["deployments"],
  summary: "Stop a deployment (Stop Server): its processes are killed and it is removed",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string() }) } },
      description: "Stopped",
    },
    401: jsonError("Not signed in"),
    404: jsonError("No such deployment of yours"),
  },
});

const one = z.object({ id: segment });
const two = z.object({ owner: segment, name: segment });
const idOf = (p: { id?: string; owner?: string; name?: string }) => p.id ?? `${p.owner}/${p.name}`;

export function deploymentRoutes(deps: DeploymentDeps) {
  const started = async (c: Context<AppEnv>, id: string, input: Parameters<typeof deploy>[3]) => {
    const { view, orgId } = await deploy(deps, viewerOf(c), id, input);
    // Deployed as an organisation: the row goes to its audit log too.
    if (orgId) c.set("audit", { orgId });
    return { success: true as const, message: DEPLOY_TEXT.started, deploymentInfo: view };
  };
  return apiRouter()
    .openapi(checkRoute, async (c) => {
      requireAdmin(c);
      if (!deps.checks) throw new AppError("unavailable", CHECK_TEXT.checkFailedAction);
      await deps.checks.start(c.req.valid("param").id);
      return c.json({ success: true as const, message: CHECK_TEXT.started }, 202);
    })
    .openapi(deployRoute("/deploy/{id}", one), async (c) => c.json(await started(c, idOf(c.req.valid("param")), c.req.valid("json")), 202))
    .openapi(deployRoute("/deploy/{owner}/{name}", two), async (c) =>
      c.json(await started(c, idOf(c.req.valid("param")), c.req.valid("json")), 202),
    )
    .openapi(listRoute, async (c) => c.json(await listMyDeployments(deps, viewerOf(c)), 200))
    .openapi(byServerRoute("/deployments/server/{id}", one), async (c) =>
      c.json({ deployments: await listMyDeployments(deps, viewerOf(c), idOf(c.req.valid("param")), c.req.valid("query").owner) }, 200),
    )
    .openapi(byServerRoute("/deployments/server/{owner}/{name}", two), async (c) =>
      c.json({ deployments: await listMyDeployments(deps, viewerOf(c), idOf(c.req.valid("param")), c.req.valid("query").owner) }, 200),
    )
    .route("/", controlRoutes(deps))
    .route("/", definitionRoutes(deps))
    .openapi(stopRoute, async (c) => {
      await stopDeployment(deps, viewerOf(c), c.req.valid("param").id);
      return c.json({ success: true as const, message: DEPLOY_TEXT.stopped }, 200);
    });
}
