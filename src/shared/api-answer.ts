// What a call to the REST API answered, as the pages see it: in the browser (web/lib/api.ts) and
// in a route action, which calls the API in-process (http/pages.ts). Errors are values.
export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; code?: string; error?: string; description?: string; timedOut?: boolean; network?: boolean; retryAfter?: number };

/** In a route action the answer also carries the Set-Cookie headers to pass on to the browser. */
export type ApiAnswer<T> = ApiResult<T> & { cookies: string[] };

/** A route action's call to the API, made with the visitor's cookies (http/pages.ts). */
export type ApiCall = <T = unknown>(method: string, path: string, body?: unknown, opts?: { timeoutMs?: number }) => Promise<ApiAnswer<T>>;
