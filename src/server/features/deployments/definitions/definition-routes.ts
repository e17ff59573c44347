import { createRoute } from "@hono/zod-openapi";
import { definitionDecisionInput, definitionModeInput, definitionReviewView } from "~/shared/definitions.js";
import { apiRouter, jsonError } from "../../../http/openapi.js";
import { decideDefinitions, definitionReview, setDefinitionMode } from "../owner-actions.js";
import { bearer, idParams, viewerOf } from "../route-parts.js";
import type { DeploymentDeps } from "../service.js";

// /api/deployments/{id}/definitions: the owner's review of the definitions that differ from the
// pinned ones (approve, reject, warn only).

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

export function definitionRoutes(deps: DeploymentDeps) {
  return apiRouter()
    .openapi(definitionsRoute, async (c) => c.json(await definitionReview(deps, viewerOf(c), c.req.valid("param").id), 200))
    .openapi(decideRoute, async (c) =>
      c.json(await decideDefinitions(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(modeRoute, async (c) =>
      c.json(await setDefinitionMode(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json").warn_only), 200),
    );
}
