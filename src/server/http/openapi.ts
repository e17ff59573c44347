import { OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../errors.js";
import { zodMessage } from "./error-map.js";
import type { AppEnv } from "./middleware.js";

export const errorBody = z.object({ error: z.string(), code: z.string() }).openapi("Error");

export const jsonError = (description: string) => ({
  content: { "application/json": { schema: errorBody } },
  description,
});

/** An OpenAPIHono whose validation failures become the one error shape. */
export function apiRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new AppError("validation_failed", zodMessage(result.error));
    },
  });
}
