import { OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../errors.js";
import { zodField, zodMessage } from "./error-map.js";
import type { AppEnv } from "./middleware.js";

export const errorBody = z
  .object({
    error: z.string(),
    code: z.string(),
    /** the request body's field the error is about, when it is about one (a form shows it there) */
    field: z.string().optional(),
  })
  .openapi("Error");

export const jsonError = (description: string) => ({
  content: { "application/json": { schema: errorBody } },
  description,
});

/** An OpenAPIHono whose validation failures become the one error shape. */
export function apiRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new AppError("validation_failed", zodMessage(result.error), zodField(result.error));
    },
  });
}
