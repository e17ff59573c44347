import { createRoute, z } from "@hono/zod-openapi";
import { adminServer, rejectRequest, serverRecord, SUBMIT_TEXT, submissionLine, submissionRequest } from "~/shared/catalog.js";
import type { Db } from "../../db/client.js";
import { ACCESS_TEXT, requireAdmin, requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import {
  acceptTools,
  adminList,
  approve,
  mySubmissions,
  reject,
  submitServer,
  unapprove,
  type ListingReview,
  type RejectionNotice,
} from "./submissions.js";

const submit = createRoute({
  method: "post",
  path: "/mcp-servers",
  tags: ["catalogue"],
  summary: "Submit a server for review",
  request: { body: { required: true, content: { "application/json": { schema: submissionRequest } } } },
  responses: {
    201: { content: { "application/json": { schema: serverRecord } }, description: "Stored, pending review" },
    400: jsonError("Missing or invalid fields"),
    401: jsonError("Not signed in"),
    409: jsonError("The id is taken"),
  },
});

const mine = createRoute({
  method: "get",
  path: "/submissions",
  tags: ["catalogue"],
  summary: "Your submissions to the catalogue: pending, approved or rejected, newest first",
  responses: {
    200: { content: { "application/json": { schema: z.array(submissionLine) } }, description: "Your submissions" },
    401: jsonError("Not signed in"),
  },
});

const idParam = z.object({ id: z.string().min(1).max(200) });
const counts = z.object({ pending: z.number(), approved: z.number() });

const list = createRoute({
  method: "get",
  path: "/admin/mcp-servers",
  tags: ["admin"],
  summary: "Pending or approved entries with their submitters (admins)",
  request: { query: z.object({ status: z.enum(["pending", "approved"]).default("pending") }) },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ data: z.array(adminServer), counts }) } },
      description: "Up to 50, newest first",
    },
    401: jsonError("Not signed in"),
    403: jsonError("Not an admin"),
  },
});

const action = (path: string, method: "post" | "delete", summary: string) =>
  createRoute({
    method,
    path,
    tags: ["admin"],
    summary,
    request: { params: idParam },
    responses: {
      200: {
        content: { "application/json": { schema: z.object({ success: z.literal(true), server: serverRecord.optional() }) } },
        description: "Done",
      },
      401: jsonError("Not signed in"),
      403: jsonError("Not an admin"),
      404: jsonError("Unknown server"),
      409: jsonError("Not in a state that allows this"),
    },
  });

const rejectRoute = createRoute({
  method: "delete",
  path: "/admin/mcp-servers/{id}",
  tags: ["admin"],
  summary: "Reject (delete) a pending entry, with an optional reason its submitter gets by e-mail and on My submissions",
  request: {
    params: idParam,
    body: { required: false, content: { "application/json": { schema: rejectRequest } } },
  },
  responses: {
    200: { content: { "application/json": { schema: z.object({ success: z.literal(true) }) } }, description: "Rejected" },
    400: jsonError("The reason is too long"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an admin"),
    404: jsonError("Unknown server"),
    409: jsonError("Not pending"),
  },
});

/** What the review routes answer a signed-out caller (401) and a signed-in non-admin (403). */
const REVIEW_ACCESS = { mustLogin: "You must be logged in", forbidden: ACCESS_TEXT.adminsOnly } as const;

export function submissionRoutes(deps: { db: Db; namespace: string; review: ListingReview; rejection: RejectionNotice }) {
  const { db } = deps;
  return apiRouter()
    .openapi(submit, async (c) => {
      const viewer = requireViewer(c, SUBMIT_TEXT.mustLogin);
      return c.json(await submitServer(db, viewer, c.req.valid("json"), deps.namespace), 201);
    })
    .openapi(mine, async (c) => c.json(await mySubmissions(db, requireViewer(c, SUBMIT_TEXT.mustLogin)), 200))
    .openapi(list, async (c) => {
      requireAdmin(c, REVIEW_ACCESS.mustLogin, REVIEW_ACCESS.forbidden);
      return c.json(await adminList(db, c.req.valid("query").status, deps.review), 200);
    })
    .openapi(action("/admin/mcp-servers/{id}/approve", "post", "Approve a pending entry"), async (c) => {
      requireAdmin(c, REVIEW_ACCESS.mustLogin, REVIEW_ACCESS.forbidden);
      return c.json({ success: true as const, server: await approve(db, c.req.valid("param").id, deps.review) }, 200);
    })
    .openapi(action("/admin/mcp-servers/{id}/unapprove", "post", "Send an approved entry back to pending"), async (c) => {
      requireAdmin(c, REVIEW_ACCESS.mustLogin, REVIEW_ACCESS.forbidden);
      return c.json({ success: true as const, server: await unapprove(db, c.req.valid("param").id) }, 200);
    })
    .openapi(
      action(
        "/admin/mcp-servers/{id}/accept-tools",
        "post",
        "Accept an approved entry's tools as listed now (they changed since approval)",
      ),
      async (c) => {
        requireAdmin(c, REVIEW_ACCESS.mustLogin, REVIEW_ACCESS.forbidden);
        await acceptTools(db, c.req.valid("param").id, deps.review);
        return c.json({ success: true as const }, 200);
      },
    )
    .openapi(rejectRoute, async (c) => {
      requireAdmin(c, REVIEW_ACCESS.mustLogin, REVIEW_ACCESS.forbidden);
      // Without a body (the spec's call) there is no reason.
      const { reason } = rejectRequest.parse(c.req.valid("json"));
      await reject(db, c.req.valid("param").id, reason, deps.rejection);
      return c.json({ success: true as const }, 200);
    });
}
