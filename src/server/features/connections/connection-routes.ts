import { createRoute, z } from "@hono/zod-openapi";
import { CONNECTION_TEXT, connectionHeadersUpdate, connectionInput, connectionSignInResult, connectionView } from "~/shared/connections.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import {
  connectOrSignIn,
  deleteConnection,
  finishConnection,
  signInAgain,
  listConnections,
  updateConnectionHeaders,
  viewConnection,
} from "./connections.js";
import { bearer, idParams, viewerOf } from "../deployments/route-parts.js";
import { deploymentOrg, type DeploymentDeps } from "../deployments/service.js";

// /api/connections: remote MCP servers reached through the gateway with the user's own headers
// (connections.ts). A connection's controls (restart, tools, definitions, log) are a deployment's.

const signInAnswer = z.object({ success: z.literal(true), message: z.string(), authorize_url: z.string() });

const createRouteDef = createRoute({
  method: "post",
  path: "/connections",
  tags: ["connections"],
  summary:
    "Connect a remote MCP server: a catalogue entry's (server_id, its keys in env) or any URL by name; it gets a Switchboard URL like a deployment",
  security: bearer,
  request: { body: { required: true, content: { "application/json": { schema: connectionInput } } } },
  responses: {
    200: {
      content: { "application/json": { schema: signInAnswer } },
      description: "With `oauth`: open `authorize_url` in the user's browser; the connection is made when it comes back",
    },
    202: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string(), connection: connectionView }) } },
      description: "Connecting (poll its status)",
    },
    400: jsonError("A bad name, URL or header, a missing key, or an address no connection may reach"),
    401: jsonError("Not signed in"),
    403: jsonError("Too many connections, a key that does not reach this server, or a member of `owner` who may not connect for it"),
    404: jsonError("No such catalogue entry, or no organisation `owner` of yours"),
    409: jsonError("A connection of that name, or to that entry, exists"),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/connections",
  tags: ["connections"],
  summary: "Your connections and your organisations' (header names only: values are never shown again)",
  security: bearer,
  responses: {
    200: { content: { "application/json": { schema: z.array(connectionView) } }, description: "Your connections" },
    401: jsonError("Not signed in"),
  },
});

const oneRoute = createRoute({
  method: "get",
  path: "/connections/{id}",
  tags: ["connections"],
  summary: "One of your connections, or one of your organisations'",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: { content: { "application/json": { schema: connectionView } }, description: "The connection" },
    401: jsonError("Not signed in"),
    404: jsonError("No such connection of yours"),
  },
});

const headersRoute = createRoute({
  method: "put",
  path: "/connections/{id}",
  tags: ["connections"],
  summary:
    "New header values (a name given empty removes that header, the others stay): sealed, and the connection reconnects with them (same URL, grants, pins, request log)",
  security: bearer,
  request: { params: idParams, body: { required: true, content: { "application/json": { schema: connectionHeadersUpdate } } } },
  responses: {
    202: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string(), connection: connectionView }) } },
      description: "Reconnecting",
    },
    400: jsonError("A header that cannot be sent, or a key the catalogue entry asks for left out"),
    401: jsonError("Not signed in"),
    403: jsonError("An organisation's connection, and a member who may not change it"),
    404: jsonError("No such connection of yours"),
    429: jsonError("Too many restarts of this connection"),
  },
});

const signInRoute = createRoute({
  method: "post",
  path: "/connections/{id}/authorize",
  tags: ["connections"],
  summary: "Sign in to the server again (its sign-in expired or was revoked): open `authorize_url` in the user's browser",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: { content: { "application/json": { schema: signInAnswer } }, description: "The server's consent page" },
    400: jsonError("Not an OAuth connection, or the server's authorization server cannot be reached"),
    401: jsonError("Not signed in"),
    403: jsonError("An organisation's connection, and a member who may not change it"),
    404: jsonError("No such connection of yours"),
  },
});

const authorizedRoute = createRoute({
  method: "post",
  path: "/connections/authorized",
  tags: ["connections"],
  summary:
    "The browser came back from the server's consent (the page at /connections/authorized posts what it brought): the code is exchanged and the connection made or restarted",
  security: bearer,
  request: { body: { required: true, content: { "application/json": { schema: connectionSignInResult } } } },
  responses: {
    202: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string(), connection: connectionView }) } },
      description: "Signed in: connecting",
    },
    400: jsonError("A sign-in that expired, was used, is another user's, or that the server refused"),
    401: jsonError("Not signed in"),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/connections/{id}",
  tags: ["connections"],
  summary: "Remove a connection: its upstream session ends and its sealed headers are deleted",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string() }) } },
      description: "Removed",
    },
    401: jsonError("Not signed in"),
    403: jsonError("An organisation's connection, and a member who may not change it"),
    404: jsonError("No such connection of yours"),
  },
});

export function connectionRoutes(deps: DeploymentDeps) {
  return apiRouter()
    .openapi(createRouteDef, async (c) => {
      const made = await connectOrSignIn(deps, viewerOf(c), c.req.valid("json"));
      if ("authorize_url" in made) return c.json({ success: true as const, message: CONNECTION_TEXT.signingIn, ...made }, 200);
      // Made as an organisation: the row is in its audit log too.
      const orgId = await deploymentOrg(deps.db, made.connection.id);
      if (orgId) c.set("audit", { orgId });
      return c.json({ success: true as const, message: CONNECTION_TEXT.connected, ...made }, 202);
    })
    .openapi(authorizedRoute, async (c) => {
      const connection = await finishConnection(deps, viewerOf(c), c.req.valid("json"));
      const orgId = await deploymentOrg(deps.db, connection.id);
      if (orgId) c.set("audit", { orgId });
      return c.json({ success: true as const, message: CONNECTION_TEXT.signedIn, connection }, 202);
    })
    .openapi(signInRoute, async (c) => {
      const answer = await signInAgain(deps, viewerOf(c), c.req.valid("param").id);
      return c.json({ success: true as const, message: CONNECTION_TEXT.signingIn, ...answer }, 200);
    })
    .openapi(listRoute, async (c) => c.json(await listConnections(deps, viewerOf(c)), 200))
    .openapi(oneRoute, async (c) => c.json(await viewConnection(deps, viewerOf(c), c.req.valid("param").id), 200))
    .openapi(headersRoute, async (c) => {
      const connection = await updateConnectionHeaders(deps, viewerOf(c), c.req.valid("param").id, c.req.valid("json").headers);
      return c.json({ success: true as const, message: CONNECTION_TEXT.headersSaved, connection }, 202);
    })
    .openapi(deleteRoute, async (c) => {
      await deleteConnection(deps, viewerOf(c), c.req.valid("param").id);
      return c.json({ success: true as const, message: CONNECTION_TEXT.removed }, 200);
    });
}
