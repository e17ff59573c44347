import { createRoute, z } from "@hono/zod-openapi";
import {
  ORG_TEXT,
  invitationInfo,
  inviteInput,
  orgDetail,
  orgInput,
  orgRename,
  orgSettingsInput,
  orgView,
  roleInput,
} from "~/shared/orgs.js";
import { requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { Orgs, type OrgDeps } from "./service.js";

// /api/orgs and /api/invitations: organisations, members and invitations (service.ts). A session's
// routes only: an API key never manages people (api-keys/key-policy.ts).

const auth: Record<string, string[]>[] = [{ cookieAuth: [] }];
const ok = z.object({ success: z.literal(true), message: z.string() });
const slugParams = z.object({ slug: z.string().min(1).max(64) });
const memberParams = slugParams.extend({ memberId: z.string().min(1).max(100) });
const invParams = slugParams.extend({ invitationId: z.string().min(1).max(100) });
const idParams = z.object({ id: z.string().min(1).max(100) });
const json = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const okAnswer = (description: string) => ({ content: { "application/json": { schema: ok } }, description });

const listRoute = createRoute({
  method: "get",
  path: "/orgs",
  tags: ["organisations"],
  summary: "The organisations you belong to, with your role in each",
  security: auth,
  responses: {
    200: { content: { "application/json": { schema: z.array(orgView) } }, description: "Yours" },
    401: jsonError("Not signed in"),
  },
});

const createOrgRoute = createRoute({
  method: "post",
  path: "/orgs",
  tags: ["organisations"],
  summary: "Create an organisation: you become its owner; its slug is a namespace as a username is",
  security: auth,
  request: { body: json(orgInput) },
  responses: {
    201: { content: { "application/json": { schema: orgView } }, description: "Created" },
    400: jsonError("A bad name or slug"),
    401: jsonError("Not signed in"),
    403: jsonError("E-mail address not confirmed"),
    409: jsonError("The slug is taken by an organisation or a user"),
  },
});

const detailRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}",
  tags: ["organisations"],
  summary: "An organisation of yours: members, and for admins its pending invitations",
  security: auth,
  request: { params: slugParams },
  responses: {
    200: { content: { "application/json": { schema: orgDetail } }, description: "The organisation" },
    401: jsonError("Not signed in"),
    404: jsonError("No such organisation of yours"),
  },
});

const deleteOrgRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}",
  tags: ["organisations"],
  summary: "Delete an organisation (owners): members lose access, invitations stop working",
  security: auth,
  request: { params: slugParams },
  responses: {
    200: okAnswer("Deleted"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an owner"),
    404: jsonError("No such organisation of yours"),
  },
});

const renameRoute = createRoute({
  method: "put",
  path: "/orgs/{slug}",
  tags: ["organisations"],
  summary: "Rename an organisation (admins); its slug stays",
  security: auth,
  request: { params: slugParams, body: json(orgRename) },
  responses: {
    200: okAnswer("Renamed"),
    400: jsonError("A bad name"),
    401: jsonError("Not signed in"),
    403: jsonError("Your role does not allow it"),
    404: jsonError("No such organisation of yours"),
  },
});

const settingsRoute = createRoute({
  method: "put",
  path: "/orgs/{slug}/settings",
  tags: ["organisations"],
  summary: "What an organisation lets its members do (admins): members_deploy lets them deploy for it and change its deployments",
  security: auth,
  request: { params: slugParams, body: json(orgSettingsInput) },
  responses: {
    200: okAnswer("Saved"),
    400: jsonError("Not a boolean"),
    401: jsonError("Not signed in"),
    403: jsonError("Your role does not allow it"),
    404: jsonError("No such organisation of yours"),
  },
});

const inviteRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/invitations",
  tags: ["organisations"],
  summary: "Invite someone by e-mail (admins; owners to make owners): a single-use link that expires in 7 days",
  security: auth,
  request: { params: slugParams, body: json(inviteInput) },
  responses: {
    201: okAnswer("Sent"),
    400: jsonError("A bad address or role"),
    401: jsonError("Not signed in"),
    403: jsonError("Your role does not allow it"),
    404: jsonError("No such organisation of yours"),
    409: jsonError("Already a member"),
  },
});

const cancelInviteRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/invitations/{invitationId}",
  tags: ["organisations"],
  summary: "Revoke a pending invitation (admins)",
  security: auth,
  request: { params: invParams },
  responses: {
    200: okAnswer("Revoked"),
    401: jsonError("Not signed in"),
    403: jsonError("Your role does not allow it"),
    404: jsonError("No such pending invitation"),
  },
});

const roleRoute = createRoute({
  method: "put",
  path: "/orgs/{slug}/members/{memberId}/role",
  tags: ["organisations"],
  summary: "Change a member's role (owners); the last owner cannot step down",
  security: auth,
  request: { params: memberParams, body: json(roleInput) },
  responses: {
    200: okAnswer("Changed"),
    400: jsonError("A bad role"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an owner"),
    404: jsonError("No such member"),
    409: jsonError("It would leave the organisation without an owner"),
  },
});

const removeRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/members/{memberId}",
  tags: ["organisations"],
  summary: "Remove a member (admins; owners to remove owners): their access ends at once",
  security: auth,
  request: { params: memberParams },
  responses: {
    200: okAnswer("Removed"),
    401: jsonError("Not signed in"),
    403: jsonError("Your role does not allow it"),
    404: jsonError("No such member"),
    409: jsonError("The last owner"),
  },
});

const leaveRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/leave",
  tags: ["organisations"],
  summary: "Leave an organisation; the last owner cannot",
  security: auth,
  request: { params: slugParams },
  responses: {
    200: okAnswer("Left"),
    401: jsonError("Not signed in"),
    404: jsonError("No such organisation of yours"),
    409: jsonError("The last owner"),
  },
});

const invitationRoute = createRoute({
  method: "get",
  path: "/invitations/{id}",
  tags: ["organisations"],
  summary: "An invitation: who invited whom to what, before anything is accepted",
  security: auth,
  request: { params: idParams },
  responses: {
    200: { content: { "application/json": { schema: invitationInfo } }, description: "The invitation" },
    401: jsonError("Not signed in"),
    404: jsonError("No such invitation"),
  },
});

const acceptRoute = createRoute({
  method: "post",
  path: "/invitations/{id}/accept",
  tags: ["organisations"],
  summary: "Accept an invitation addressed to you: once, before it expires",
  security: auth,
  request: { params: idParams },
  responses: {
    200: { content: { "application/json": { schema: ok.extend({ slug: z.string() }) } }, description: "Joined" },
    401: jsonError("Not signed in"),
    403: jsonError("Addressed to someone else, or your address is not confirmed"),
    404: jsonError("Used, revoked, declined or expired"),
  },
});

const declineRoute = createRoute({
  method: "post",
  path: "/invitations/{id}/decline",
  tags: ["organisations"],
  summary: "Decline an invitation addressed to you",
  security: auth,
  request: { params: idParams },
  responses: {
    200: okAnswer("Declined"),
    401: jsonError("Not signed in"),
    403: jsonError("Addressed to someone else"),
    404: jsonError("Used, revoked or expired"),
  },
});

export function orgRoutes(deps: OrgDeps) {
  const orgs = new Orgs(deps);
  const app = apiRouter();
  const headers = (c: { req: { raw: Request } }) => c.req.raw.headers;

  app.openapi(listRoute, async (c) => c.json(await orgs.list(requireViewer(c)), 200));

  app.openapi(createOrgRoute, async (c) => {
    const created = await orgs.create(requireViewer(c), headers(c), c.req.valid("json"));
    c.set("audit", { orgId: created.id, target: created.slug, detail: { name: created.name } });
    return c.json(created, 201);
  });

  app.openapi(detailRoute, async (c) => c.json(await orgs.detail(requireViewer(c), c.req.valid("param").slug), 200));

  app.openapi(deleteOrgRoute, async (c) => {
    const { org } = await orgs.remove(requireViewer(c), headers(c), c.req.valid("param").slug);
    c.set("audit", { orgId: org.id, target: org.slug, detail: { name: org.name } });
    return c.json({ success: true as const, message: ORG_TEXT.deleted }, 200);
  });

  app.openapi(renameRoute, async (c) => {
    const { name } = c.req.valid("json");
    const { org, from } = await orgs.rename(requireViewer(c), headers(c), c.req.valid("param").slug, name);
    c.set("audit", { orgId: org.id, target: org.slug, detail: { from, to: name } });
    return c.json({ success: true as const, message: ORG_TEXT.renamed }, 200);
  });

  app.openapi(settingsRoute, async (c) => {
    const { members_deploy } = c.req.valid("json");
    const { org } = await orgs.setMembersDeploy(requireViewer(c), c.req.valid("param").slug, members_deploy);
    c.set("audit", { orgId: org.id, target: org.slug, detail: { members_deploy } });
    return c.json({ success: true as const, message: ORG_TEXT.settingsSaved }, 200);
  });

  app.openapi(inviteRoute, async (c) => {
    const body = c.req.valid("json");
    const { org } = await orgs.invite(requireViewer(c), headers(c), c.req.valid("param").slug, body);
    c.set("audit", { orgId: org.id, target: body.email, detail: { role: body.role } });
    return c.json({ success: true as const, message: ORG_TEXT.invited(body.email) }, 201);
  });

  app.openapi(cancelInviteRoute, async (c) => {
    const p = c.req.valid("param");
    const { org, email } = await orgs.cancelInvitation(requireViewer(c), headers(c), p.slug, p.invitationId);
    // The invitation's id is its link's secret: the log names the address only.
    c.set("audit", { orgId: org.id, target: email });
    return c.json({ success: true as const, message: ORG_TEXT.invitationCancelled }, 200);
  });

  app.openapi(roleRoute, async (c) => {
    const p = c.req.valid("param");
    const r = await orgs.changeRole(requireViewer(c), headers(c), p.slug, p.memberId, c.req.valid("json").role);
    c.set("audit", { orgId: r.org.id, target: r.username, detail: { user_id: r.userId, from: r.from, to: r.to } });
    return c.json({ success: true as const, message: ORG_TEXT.roleChanged }, 200);
  });

  app.openapi(removeRoute, async (c) => {
    const p = c.req.valid("param");
    const r = await orgs.removeMember(requireViewer(c), headers(c), p.slug, p.memberId);
    c.set("audit", { orgId: r.org.id, target: r.username, detail: { user_id: r.userId, role: r.role } });
    return c.json({ success: true as const, message: ORG_TEXT.removed }, 200);
  });

  app.openapi(leaveRoute, async (c) => {
    const { org } = await orgs.leave(requireViewer(c), headers(c), c.req.valid("param").slug);
    c.set("audit", { orgId: org.id, target: org.slug });
    return c.json({ success: true as const, message: ORG_TEXT.left }, 200);
  });

  app.openapi(invitationRoute, async (c) => c.json(await orgs.invitation(requireViewer(c), c.req.valid("param").id), 200));

  app.openapi(acceptRoute, async (c) => {
    const r = await orgs.accept(requireViewer(c), headers(c), c.req.valid("param").id);
    c.set("audit", { orgId: r.orgId, target: r.slug, detail: { role: r.role } });
    return c.json({ success: true as const, message: ORG_TEXT.accepted(r.name), slug: r.slug }, 200);
  });

  app.openapi(declineRoute, async (c) => {
    const r = await orgs.decline(requireViewer(c), headers(c), c.req.valid("param").id);
    c.set("audit", { orgId: r.orgId });
    return c.json({ success: true as const, message: ORG_TEXT.declined }, 200);
  });

  return app;
}
