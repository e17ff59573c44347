import { createRoute, z } from "@hono/zod-openapi";
import { DEPLOY_TEXT, deployInput, deploymentView, envInput, toolSelectionInput } from "../../../shared/deployments.js";
import type { Context } from "hono";
import { CHECK_TEXT } from "../../../shared/catalog.js";
import { AppError } from "../../errors.js";
import { requireAdmin, requireViewer } from "../../http/guards.js";
import type { AppEnv } from "../../http/middleware.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { definitionDecisionInput, definitionModeInput, definitionReviewView } from "../../../shared/definitions.js";
import {
  decideDefinitions,
  definitionReview,
  deploy,
  deploymentLogs,
  listMyDeployments,
  restartDeployment,
  setDefinitionMode,
  setHiddenTools,
  stopDeployment,
  type DeploymentDeps,
} from "./service.js";

const bearer: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];
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
    summary: "Your deployments of one server",
    security: bearer,
    request: { params },
    responses: {
      200: { content: { "application/json": { schema: z.object({ deployments: z.array(deploymentView) }) } }, description: "Deployments" },
      401: jsonError("Not signed in"),
    },
  });

const idParams = z.object({ id: z.string().min(1).max(100) });

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

const restartRoute = createRoute({
  method: "post",
  path: "/deployments/{id}/restart",
  tags: ["deployments"],
  summary: "Restart a deployment in place (same URL, keys, grants, pins, tool selection and request log); not counted as a deploy",
  security: bearer,
  request: { params: idParams },
  responses: {
    202: {
      content: {
        "application/json": { schema: z.object({ success: z.literal(true), message: z.string(), deploymentInfo: deploymentView }) },
      },
      description: "Restarting (poll its status)",
    },
    401: jsonError("Not signed in"),
    403: jsonError("A failed or stopped deployment and no running slot left in the plan"),
    404: jsonError("No such deployment of yours"),
  },
});

const envRoute = createRoute({
  method: "put",
  path: "/deployments/{id}/env",
  tags: ["deployments"],
  summary:
    "Edit keys: new values are sealed and the deployment restarts in place with them (a key left empty keeps its value); not counted as a deploy",
  security: bearer,
  request: { params: idParams, body: { required: true, content: { "application/json": { schema: envInput } } } },
  responses: {
    202: {
      content: {
        "application/json": { schema: z.object({ success: z.literal(true), message: z.string(), deploymentInfo: deploymentView }) },
      },
      description: "Saved; restarting (poll its status)",
    },
    400: jsonError("A required key would be empty, or a name or value that is refused"),
    401: jsonError("Not signed in"),
    403: jsonError("A failed or stopped deployment and no running slot left in the plan"),
    404: jsonError("No such deployment of yours"),
  },
});

const logsRoute = createRoute({
  method: "get",
  path: "/deployments/{id}/logs",
  tags: ["deployments"],
  summary: "The last lines of the server's output (secrets masked, control characters escaped)",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: {
      content: {
        "application/json": { schema: z.object({ status: z.string(), status_detail: z.string().nullable(), lines: z.array(z.string()) }) },
      },
      description: "Output",
    },
    401: jsonError("Not signed in"),
    404: jsonError("No such deployment of yours"),
  },
});

const toolsRoute = createRoute({
  method: "put",
  path: "/deployments/{id}/tools",
  tags: ["deployments"],
  summary:
    "Choose the tools a deployment exposes: the ones named are hidden from every client (listings leave them out, calls are refused)",
  security: bearer,
  request: { params: idParams, body: { required: true, content: { "application/json": { schema: toolSelectionInput } } } },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ hidden_tools: z.array(z.string()) }) } },
      description: "Saved; open sessions are told the tool list changed",
    },
    400: jsonError("Not a list of at most 500 tool names"),
    401: jsonError("Not signed in"),
    404: jsonError("No such deployment of yours"),
  },
});

const definitionsRoute = createRoute({
  method: "get",
  path: "/deployments/{id}/definitions",
  tags: ["deployments"],
  summary:
    "The deployment's tool, prompt and resource-template definitions that differ from the ones pinned at first listing (changed, new, rejected)",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: { content: { "application/json": { schema: definitionReviewView } }, description: "Changes waiting for review" },
    401: jsonError("Not signed in"),
    404: jsonError("No such deployment of yours"),
  },
});

const decideRoute = createRoute({
  method: "post",
  path: "/deployments/{id}/definitions",
  tags: ["deployments"],
  summary: "Approve (the definition is pinned and reaches clients) or reject (it stays withheld) changed definitions, all or none",
  security: bearer,
  request: { params: idParams, body: { required: true, content: { "application/json": { schema: definitionDecisionInput } } } },
  responses: {
    200: {
      content: { "application/json": { schema: definitionReviewView } },
      description: "Decided; open sessions are told the lists changed",
    },
    400: jsonError("Not a decision about at most 500 definitions"),
    401: jsonError("Not signed in"),
    404: jsonError("No such deployment of yours, or no change waiting for that definition"),
    409: jsonError("The definition changed again since it was shown: review the new one"),
  },
});

const modeRoute = createRoute({
  method: "put",
  path: "/deployments/{id}/definitions/mode",
  tags: ["deployments"],
  summary: "Warn only: changed definitions reach clients at once and are listed for review, instead of being withheld",
  security: bearer,
  request: { params: idParams, body: { required: true, content: { "application/json": { schema: definitionModeInput } } } },
  responses: {
    200: { content: { "application/json": { schema: definitionReviewView } }, description: "Saved" },
    400: jsonError("Not a boolean"),
    401: jsonError("Not signed in"),
    404: jsonError("No such deployment of yours"),
  },
});

const one = z.object({ id: segment });
const two = z.object({ owner: segment, name: segment });
const idOf = (p: { id?: string; owner?: string; name?: string }) => p.id ?? `${p.owner}/${p.name}`;

const viewerOf = (c: Context<AppEnv>) => requireViewer(c, DEPLOY_TEXT.mustLogin);

export function deploymentRoutes(deps: DeploymentDeps) {
  const started = async (viewer: Parameters<typeof deploy>[1], id: string, input: Parameters<typeof deploy>[3]) => ({
    success: true as const,
    message: DEPLOY_TEXT.started,
    deploymentInfo: await deploy(deps, viewer, id, input),
  });
  return apiRouter()
    .openapi(checkRoute, async (c) => {
      requireAdmin(c);
      if (!deps.checks) throw new AppError("unavailable", CHECK_TEXT.checkFailedAction);
      await deps.checks.start(c.req.valid("param").id);
      return c.json({ success: true as const, message: CHECK_TEXT.started }, 202);
    })
    .openapi(deployRoute("/deploy/{id}", one), async (c) =>
      c.json(await started(viewerOf(c), idOf(c.req.valid("param")), c.req.valid("json")), 202),
    )
    .openapi(deployRoute("/deploy/{owner}/{name}", two), async (c) =>
      c.json(await started(viewerOf(c), idOf(c.req.valid("param")), c.req.valid("json")), 202),
    )
    .openapi(listRoute, async (c) => c.json(await listMyDeployments(deps, viewerOf(c)), 200))
    .openapi(byServerRoute("/deployments/server/{id}", one), async (c) =>
      c.json({ deployments: await listMyDeployments(deps, viewerOf(c), idOf(c.req.valid("param"))) }, 200),
    )
    .openapi(byServerRoute("/deployments/server/{owner}/{name}", two), async (c) =>
      c.json({ deployments: await listMyDeployments(deps, viewerOf(c), idOf(c.req.valid("param"))) }, 200),
    )
    .openapi(restartRoute, async (c) =>
      c.json(
        {
          success: true as const,
          message: DEPLOY_TEXT.restarted,
          deploymentInfo: await restartDeployment(deps, viewerOf(c), c.req.valid("param").id),
        },
        202,
      ),
    )
    .openapi(envRoute, async (c) =>
      c.json(
        {
          success: true as const,
          message: DEPLOY_TEXT.keysSaved,
          deploymentInfo: await restartDeployment(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json").env),
        },
        202,
      ),
    )
    .openapi(logsRoute, async (c) => c.json(await deploymentLogs(deps, viewerOf(c), c.req.valid("param").id), 200))
    .openapi(toolsRoute, async (c) =>
      c.json(await setHiddenTools(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json").hidden), 200),
    )
    .openapi(definitionsRoute, async (c) => c.json(await definitionReview(deps, viewerOf(c), c.req.valid("param").id), 200))
    .openapi(decideRoute, async (c) =>
      c.json(await decideDefinitions(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(modeRoute, async (c) =>
      c.json(await setDefinitionMode(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json").warn_only), 200),
    )
    .openapi(stopRoute, async (c) => {
      await stopDeployment(deps, viewerOf(c), c.req.valid("param").id);
      return c.json({ success: true as const, message: DEPLOY_TEXT.stopped }, 200);
    });
}
