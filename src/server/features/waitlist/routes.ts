import { createRoute } from "@hono/zod-openapi";
import { waitlistRequest, waitlistResponse } from "~/shared/waitlist.js";
import type { Db } from "../../db/client.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { joinWaitlist } from "./service.js";

const join = createRoute({
  method: "post",
  path: "/waitlist",
  tags: ["waitlist"],
  summary: "Join the pre-launch waitlist",
  request: { body: { required: true, content: { "application/json": { schema: waitlistRequest } } } },
  responses: {
    201: { content: { "application/json": { schema: waitlistResponse } }, description: "Added to the waitlist" },
    200: { content: { "application/json": { schema: waitlistResponse } }, description: "Already on the waitlist" },
    400: jsonError("Missing or malformed e-mail, or a body that is not JSON"),
  },
});

export function waitlistRoutes(deps: { db: Db }) {
  return apiRouter().openapi(join, async (c) => {
    const { email } = c.req.valid("json");
    const result = await joinWaitlist(deps.db, email);
    return c.json(result, result.created ? 201 : 200);
  });
}
