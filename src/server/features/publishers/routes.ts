import { createRoute, z } from "@hono/zod-openapi";
import { apiKeyCreate, apiKeyCreateBody, apiKeyView, ownedServerView, SERVER_FORM_TEXT, serverInput } from "~/shared/publishers.js";
import type { Db } from "../../db/client.js";
import { ACCESS_TEXT, requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { createApiKey, listApiKeys, revokeApiKey } from "./api-keys.js";
import type { KeyRevocations } from "./revocations.js";
import { getMyServer, listMyServers, registerServer, saveServer } from "./service.js";

const bearer: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];

const me = createRoute({
  method: "get",
  path: "/auth/me",
  tags: ["api keys"],
  summary: "The signed-in user and their API keys (names, prefixes and dates; never the keys)",
  security: bearer,
  responses: {
    200: {
      content: {
        "application/json": {
          schema: z.object({ user: z.object({ id: z.string(), username: z.string(), email: z.string(), apiKeys: z.array(apiKeyView) }) }),
        },
      },
      description: "The user",
    },
    401: jsonError("Not signed in"),
  },
});

const createKey = createRoute({
  method: "post",
  path: "/auth/apikeys",
  tags: ["api keys"],
  summary: "Create an API key; the full key is in this answer only",
  security: bearer,
  request: { body: { required: true, content: { "application/json": { schema: apiKeyCreateBody } } } },
  responses: {
    201: { content: { "application/json": { schema: z.object({ apiKey: z.string(), key: apiKeyView }) } }, description: "Created" },
    400: jsonError("No name"),
    401: jsonError("Not signed in"),
    409: jsonError("A key with this name exists"),
  },
});

const revokeKey = createRoute({
  method: "delete",
  path: "/auth/apikeys/{name}",
  tags: ["api keys"],
  summary: "Revoke an API key by name; it fails from the next request on",
  security: bearer,
  request: { params: z.object({ name: z.string().min(1).max(100) }) },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string() }) } },
      description: "Revoked",
    },
    401: jsonError("Not signed in"),
    404: jsonError("No such key"),
  },
});

const qnParams = z.object({ owner: z.string().min(1).max(100), name: z.string().min(1).max(100) });

const list = createRoute({
  method: "get",
  path: "/servers",
  tags: ["servers"],
  summary: "Your own registered servers",
  security: bearer,
  responses: {
    200: { content: { "application/json": { schema: z.object({ data: z.array(ownedServerView) }) } }, description: "Your servers" },
    401: jsonError("Not signed in"),
  },
});

const one = createRoute({
  method: "get",
  path: "/servers/{owner}/{name}",
  tags: ["servers"],
  summary: "One of your servers, by qualified name",
  security: bearer,
  request: { params: qnParams },
  responses: {
    200: { content: { "application/json": { schema: ownedServerView } }, description: "The server" },
    401: jsonError("Not signed in"),
    403: jsonError("Another user's server"),
    404: jsonError("No such server"),
  },
});

const create = createRoute({
  method: "post",
  path: "/servers",
  tags: ["servers"],
  summary: "Register a server under owner/name (owner = your username)",
  security: bearer,
  request: { body: { required: true, content: { "application/json": { schema: serverInput } } } },
  responses: {
    201: { content: { "application/json": { schema: ownedServerView } }, description: "Registered" },
    400: jsonError("Invalid input, or the owner part is not your username"),
    401: jsonError("Not signed in"),
    409: jsonError("The qualified name is taken"),
  },
});

const update = createRoute({
  method: "put",
  path: "/servers/{owner}/{name}",
  tags: ["servers"],
  summary: "Save changes to your server (the qualified name stays)",
  security: bearer,
  request: { params: qnParams, body: { required: true, content: { "application/json": { schema: serverInput } } } },
  responses: {
    200: { content: { "application/json": { schema: ownedServerView } }, description: "Saved" },
    400: jsonError("Invalid input"),
    401: jsonError("Not signed in"),
    403: jsonError("Another user's server"),
    404: jsonError("No such server"),
  },
});

const qn = (p: { owner: string; name: string }) => `${p.owner}/${p.name}`;

// Signed out: the API-key routes answer with the generic wording, the server routes with the server form's.
export function publisherRoutes(deps: { db: Db; revocations: KeyRevocations }) {
  const { db } = deps;
  return apiRouter()
    .openapi(me, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      return c.json({ user: { id: v.id, username: v.username, email: v.email, apiKeys: await listApiKeys(db, v) } }, 200);
    })
    .openapi(createKey, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      return c.json(await createApiKey(db, v, apiKeyCreate.parse(c.req.valid("json"))), 201);
    })
    .openapi(revokeKey, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      return c.json({ success: true as const, message: await revokeApiKey(deps, v, c.req.valid("param").name) }, 200);
    })
    .openapi(list, async (c) => {
      const v = requireViewer(c, SERVER_FORM_TEXT.mustLogin);
      return c.json({ data: await listMyServers(db, v) }, 200);
    })
    .openapi(one, async (c) => {
      const v = requireViewer(c, SERVER_FORM_TEXT.mustLogin);
      return c.json(await getMyServer(db, v, qn(c.req.valid("param"))), 200);
    })
    .openapi(create, async (c) => {
      const v = requireViewer(c, SERVER_FORM_TEXT.mustLogin);
      return c.json(await registerServer(db, v, c.req.valid("json")), 201);
    })
    .openapi(update, async (c) => {
      const v = requireViewer(c, SERVER_FORM_TEXT.mustLogin);
      return c.json(await saveServer(db, v, qn(c.req.valid("param")), c.req.valid("json")), 200);
    });
}
