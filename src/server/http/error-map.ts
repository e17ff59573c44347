import type { Context } from "hono";
import { APIError } from "better-auth/api";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ZodError } from "zod";
import { AppError, type ErrorCode } from "../errors.js";
import type { Logger } from "../log.js";

// The one map from error code to HTTP status. Bodies are always { error, code }.
const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  validation_failed: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  plan_limit: 403,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

export function statusOf(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code];
}

export function zodMessage(err: ZodError): string {
  const first = err.issues[0];
  return first?.message ?? "Invalid request";
}

/** The body's field the first problem is about (`{ field }` beside the error, so a form can say it at that field). */
export function zodField(err: ZodError): { field: string } | undefined {
  const top = err.issues[0]?.path[0];
  return typeof top === "string" ? { field: top } : undefined;
}

export function toErrorResponse(err: unknown, c: Context, log: Logger): Response {
  if (err instanceof AppError) {
    if (err.code === "internal") return internal(err, c, log);
    return c.json({ error: err.message, code: err.code, ...(err.details ?? {}) }, STATUS[err.code]);
  }
  if (err instanceof APIError) {
    // The auth library refused (no session, a bad value, too many tries): its status and words, never a 500.
    const status = err.statusCode;
    const code: ErrorCode =
      status === 401
        ? "unauthorized"
        : status === 403
          ? "forbidden"
          : status === 404
            ? "not_found"
            : status === 429
              ? "rate_limited"
              : status === 409
                ? "conflict"
                : status >= 500
                  ? "internal"
                  : "validation_failed";
    if (code === "internal") return internal(err, c, log);
    const message = (err.body as { message?: unknown } | undefined)?.message;
    return c.json(
      {
        error: typeof message === "string" && message ? message : status === 401 ? "This action needs you to sign in" : "Request refused",
        code,
      },
      STATUS[code],
    );
  }
  if (err instanceof ZodError) {
    return c.json({ error: zodMessage(err), code: "validation_failed", ...zodField(err) }, 400);
  }
  if (err instanceof HTTPException) {
    // Hono's own validators throw this for an unparsable body.
    const status = err.status as ContentfulStatusCode;
    if (status === 400) return c.json({ error: "Request body must be valid JSON", code: "invalid_json" }, 400);
    if (status === 415) return c.json({ error: "Request body must be JSON (Content-Type: application/json)", code: "invalid_json" }, 400);
    return c.json({ error: err.message || "Request failed", code: status === 404 ? "not_found" : "internal" }, status);
  }
  return internal(err, c, log);
}

function internal(err: unknown, c: Context, log: Logger): Response {
  const requestId = c.get("requestId") as string | undefined;
  log.error({ err, requestId }, "unhandled error");
  return c.json({ error: "Something went wrong on our side. Please try again.", code: "internal", requestId }, 500);
}
