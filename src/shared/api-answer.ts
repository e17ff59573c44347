// What a call to the REST API answered, as the pages see it: in the browser (web/lib/api.ts) and
// in a route action, which calls the API in-process (http/pages.ts). Errors are values.
export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | {
      ok: false;
      status: number;
      code?: string;
      error?: string;
      /** the request body's field the error is about, when the API said (`{ field }`) */
      field?: string;
      description?: string;
      timedOut?: boolean;
      network?: boolean;
      retryAfter?: number;
    };

/** In a route action the answer also carries the Set-Cookie headers to pass on to the browser. */
export type ApiAnswer<T> = ApiResult<T> & { cookies: string[] };

/** A route action's call to the API, made with the visitor's cookies (http/pages.ts). */
export type ApiCall = <T = unknown>(method: string, path: string, body?: unknown, opts?: { timeoutMs?: number }) => Promise<ApiAnswer<T>>;

/** An API answer read into an ApiResult: its data, or what the refusal said. */
export async function resultOf<T>(res: Response): Promise<ApiResult<T>> {
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (res.ok) return { ok: true, status: res.status, data: data as T };
  const text = (k: string) => (typeof data?.[k] === "string" ? (data[k] as string) : undefined);
  return {
    ok: false,
    status: res.status,
    code: text("code"),
    // Our API answers { error }, better-auth { message }; OAuth errors carry their explanation apart from their code.
    error: text("error") ?? text("message"),
    field: text("field"),
    description: text("error_description"),
    retryAfter: Number(res.headers.get("retry-after")) || undefined,
  };
}
