import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { requireViewer } from "../../http/guards.js";
import type { AppEnv } from "../../http/middleware.js";

// What the deployments' REST routes (routes.ts, control-routes.ts, definition-routes.ts) share:
// how they are signed in to, a deployment's id parameter and the signed-in viewer.

export const bearer: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];

export const idParams = z.object({ id: z.string().min(1).max(100) });

export const viewerOf = (c: Context<AppEnv>) => requireViewer(c, DEPLOY_TEXT.mustLogin);
