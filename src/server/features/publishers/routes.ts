import { createRoute, z } from "@hono/zod-openapi";
import { myServerView, ownedServerView, SERVER_FORM_TEXT, serverInput } from "~/shared/publishers.js";
import type { Db } from "../../db/client.js";
import { requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { getMyServer, listMyServers, registerServer, saveServer } from "./service.js";

const bearer: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];

const qnParams = z.object({ owner: z.string().min(1).max(100), name: z.string().min(1).max(100) });

const list = createRoute({
  method: "get",
  path: "/servers",
  tags: ["servers"],
  summary: "Your registered servers, and your organisations'",
  security: bearer,
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ data: z.array(myServerView) }) } },
      description: "Your servers and your organisations' (manage: whether you may edit and deploy it)",
    },
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
  summary: "Register a server under owner/name (owner = your username, or the slug of an organisation you may deploy for)",
  security: bearer,
  request: { body: { required: true, content: { "application/json": { schema: serverInput } } } },
  responses: {
    201: { content: { "application/json": { schema: ownedServerView } }, description: "Registered" },
    400: jsonError("Invalid input, or the owner part is neither your username nor one of your organisations"),
    403: jsonError("An organisation whose members may not register servers"),
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

// Signed out: the server form's wording.
export function publisherRoutes(deps: { db: Db }) {
  const { db } = deps;
  return apiRouter()
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
      const r = await registerServer(db, v, c.req.valid("json"));
      // An organisation's server: its admins see the row in its audit log.
      if (r.orgId) c.set("audit", { orgId: r.orgId });
      return c.json(r.view, 201);
    })
    .openapi(update, async (c) => {
      const v = requireViewer(c, SERVER_FORM_TEXT.mustLogin);
      const r = await saveServer(db, v, qn(c.req.valid("param")), c.req.valid("json"));
      if (r.orgId) c.set("audit", { orgId: r.orgId });
      return c.json(r.view, 200);
    });
}
