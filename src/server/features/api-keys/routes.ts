import { createRoute, z } from "@hono/zod-openapi";
import { apiKeyCreate, apiKeyCreateBody, apiKeyView } from "~/shared/publishers.js";
import type { Db } from "../../db/client.js";
import { ACCESS_TEXT, requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { createApiKey, listApiKeys, revokeApiKey, type KeyServers } from "./api-keys.js";
import type { KeyRevocations } from "./revocations.js";

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

// Signed out: the generic wording.
export function apiKeyRoutes(deps: { db: Db; revocations: KeyRevocations; servers: KeyServers }) {
  const { db } = deps;
  return apiRouter()
    .openapi(me, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      return c.json({ user: { id: v.id, username: v.username, email: v.email, apiKeys: await listApiKeys(db, v) } }, 200);
    })
    .openapi(createKey, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      return c.json(await createApiKey({ db, servers: deps.servers }, v, apiKeyCreate.parse(c.req.valid("json"))), 201);
    })
    .openapi(revokeKey, async (c) => {
      const v = requireViewer(c, ACCESS_TEXT.mustLogin);
      return c.json({ success: true as const, message: await revokeApiKey(deps, v, c.req.valid("param").name) }, 200);
    });
}
