import { createRoute, z } from "@hono/zod-openapi";
import { DEPLOY_TEXT, deploymentView, envInput, keepAwakeInput, toolSelectionInput } from "~/shared/deployments.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { deploymentLogs, keepAwake, restartDeployment, setHiddenTools } from "./owner-actions.js";
import { bearer, idParams, viewerOf } from "./route-parts.js";
import type { DeploymentDeps } from "./service.js";

// A deployment's controls under /api/deployments/{id}: restart, Edit keys, its output and the
// choice of the tools it exposes.

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
    429: jsonError("More than DEPLOY_RESTARTS_PER_MINUTE restarts of this deployment in a minute (Edit keys included)"),
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
    429: jsonError("More than DEPLOY_RESTARTS_PER_MINUTE restarts of this deployment in a minute (Edit keys included)"),
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

const sleepRoute = createRoute({
  method: "put",
  path: "/deployments/{id}/sleep",
  tags: ["deployments"],
  summary:
    "Whether the deployment stays awake while idle (Pro) or sleeps after DEPLOY_IDLE_MS without a request (the default); a sleeping one wakes on its next request",
  security: bearer,
  request: { params: idParams, body: { required: true, content: { "application/json": { schema: keepAwakeInput } } } },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ keep_awake: z.boolean(), message: z.string() }) } },
      description: "Saved",
    },
    400: jsonError("A connection or a toolset (they never sleep), or not a boolean"),
    401: jsonError("Not signed in"),
    403: jsonError("Keeping a deployment awake is part of the Pro plan"),
    404: jsonError("No such deployment of yours"),
  },
});

export function controlRoutes(deps: DeploymentDeps) {
  return apiRouter()
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
    .openapi(sleepRoute, async (c) =>
      c.json(await keepAwake(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json").keep_awake), 200),
    );
}
