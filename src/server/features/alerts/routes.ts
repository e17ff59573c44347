import { createRoute, z } from "@hono/zod-openapi";
import { alertSettingsInput, alertsPage } from "~/shared/alerts.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { bearer, idParams, viewerOf } from "../deployments/route-parts.js";
import type { Alerts } from "./service.js";

// A deployment's alerts under /api/deployments/{id}/alerts (Pro's advanced monitoring).

const params = idParams;
const page = { content: { "application/json": { schema: alertsPage } }, description: "Settings, recent alerts and retention" };

const getRoute = createRoute({
  method: "get",
  path: "/deployments/{id}/alerts",
  tags: ["deployments"],
  summary: "Your deployment's alert settings and its latest alerts (open first), and how long its request log is kept",
  security: bearer,
  request: { params },
  responses: { 200: page, 401: jsonError("Not signed in"), 404: jsonError("No such deployment of yours") },
});

const putRoute = createRoute({
  method: "put",
  path: "/deployments/{id}/alerts",
  tags: ["deployments"],
  summary: "Choose whether alerts are e-mailed, and the error-rate (%) and p95 latency (ms) thresholds (null: no alert) (Pro)",
  security: bearer,
  request: { params, body: { required: true, content: { "application/json": { schema: alertSettingsInput } } } },
  responses: {
    200: page,
    400: jsonError("A threshold out of range"),
    401: jsonError("Not signed in"),
    403: jsonError("Alerts are part of the Pro plan"),
    404: jsonError("No such deployment of yours"),
  },
});

const testRoute = createRoute({
  method: "post",
  path: "/deployments/{id}/alerts/test",
  tags: ["deployments"],
  summary: "Send a test alert to your e-mail address now (Pro; once a minute)",
  security: bearer,
  request: { params },
  responses: {
    200: { content: { "application/json": { schema: z.object({ message: z.string() }) } }, description: "Sent" },
    401: jsonError("Not signed in"),
    403: jsonError("Alerts are part of the Pro plan"),
    404: jsonError("No such deployment of yours"),
    429: jsonError("A test alert in the last minute, or this hour's alert e-mails sent"),
    503: jsonError("The e-mail server did not accept it"),
  },
});

export function alertRoutes(alerts: Alerts) {
  return apiRouter()
    .openapi(getRoute, async (c) => c.json(await alerts.page(viewerOf(c), c.req.valid("param").id), 200))
    .openapi(putRoute, async (c) => c.json(await alerts.saveSettings(viewerOf(c), c.req.valid("param").id, c.req.valid("json")), 200))
    .openapi(testRoute, async (c) => c.json(await alerts.sendTest(viewerOf(c), c.req.valid("param").id), 200));
}
