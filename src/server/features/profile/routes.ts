import { createRoute, z } from "@hono/zod-openapi";
import { PROFILE_TEXT } from "~/shared/auth.js";
import { deleteAccountRequest, profileUpdate, profileView } from "~/shared/profile.js";
import type { Db } from "../../db/client.js";
import { requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import type { Auth } from "../auth/auth.js";
import { deleteAccount, profileJson, updateProfile, type DeleteAccountDeps } from "./service.js";

const params = z.object({ id: z.string().min(1).max(200) });

const update = createRoute({
  method: "put",
  path: "/users/{id}",
  tags: ["profile"],
  summary: "Update your username, e-mail address or password (only the changed fields)",
  request: { params, body: { required: true, content: { "application/json": { schema: profileUpdate } } } },
  responses: {
    200: {
      content: {
        "application/json": { schema: z.object({ profile: profileView, message: z.string(), emailChangePending: z.string().nullable() }) },
      },
      description: "Saved",
    },
    400: jsonError("Invalid input, nothing to change, or wrong current password"),
    401: jsonError("Not signed in"),
    403: jsonError("Another user's profile"),
    409: jsonError("Username taken"),
  },
});

const remove = createRoute({
  method: "delete",
  path: "/users/{id}",
  tags: ["profile"],
  summary: "Delete your account (type your e-mail address to confirm)",
  request: { params, body: { required: true, content: { "application/json": { schema: deleteAccountRequest } } } },
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ success: z.literal(true), message: z.string() }) } },
      description: "Deleted",
    },
    400: jsonError("Confirmation does not match"),
    401: jsonError("Not signed in"),
    403: jsonError("Another user's account"),
  },
});

const SESSION_COOKIES = [
  "better-auth.session_token",
  "better-auth.session_data",
  "__Secure-better-auth.session_token",
  "__Secure-better-auth.session_data",
];

export function profileRoutes(deps: { auth: Auth; db: Db } & DeleteAccountDeps) {
  return apiRouter()
    .openapi(update, async (c) => {
      const viewer = requireViewer(c, PROFILE_TEXT.notAuthenticated);
      const r = await updateProfile(deps, viewer, c.req.valid("param").id, c.req.valid("json"), c.req.raw.headers);
      for (const cookie of r.setCookies) c.header("Set-Cookie", cookie, { append: true });
      return c.json({ profile: profileJson(r.profile), message: r.message, emailChangePending: r.emailChangePending }, 200);
    })
    .openapi(remove, async (c) => {
      const viewer = requireViewer(c, PROFILE_TEXT.notAuthenticated);
      await deleteAccount(deps, viewer, c.req.valid("param").id, c.req.valid("json").confirmEmail);
      for (const name of SESSION_COOKIES) {
        c.header("Set-Cookie", `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${name.startsWith("__Secure") ? "; Secure" : ""}`, {
          append: true,
        });
      }
      return c.json({ success: true as const, message: "Your account has been deleted" }, 200);
    });
}
