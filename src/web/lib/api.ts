import type { ApiResult } from "../../shared/api-answer";

// Small fetch wrapper for the browser: JSON in and out, a timeout, and errors as values.
export type { ApiResult };

export async function api<T = unknown>(
  path: string,
  opts: { method?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<ApiResult<T>> {
  const ctrl = new AbortController();
  const timer = opts.timeoutMs ? setTimeout(() => ctrl.abort(), opts.timeoutMs) : undefined;
  try {
    const res = await fetch(path, {
      method: opts.method ?? (opts.body === undefined ? "GET" : "POST"),
      headers: opts.body === undefined ? undefined : { "Content-Type": "application/json" },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: "same-origin",
      signal: ctrl.signal,
    });
    const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (res.ok) return { ok: true, status: res.status, data: data as T };
    return {
      ok: false,
      status: res.status,
      code: typeof data?.code === "string" ? data.code : undefined,
      // Our API answers { error }, better-auth { message }.
      error: typeof data?.error === "string" ? data.error : typeof data?.message === "string" ? data.message : undefined,
      // OAuth errors carry their explanation apart from their code.
      description: typeof data?.error_description === "string" ? data.error_description : undefined,
      retryAfter: Number(res.headers.get("retry-after")) || undefined,
    };
  } catch (e) {
    if ((e as Error).name === "AbortError") return { ok: false, status: 0, timedOut: true };
    return { ok: false, status: 0, network: true };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Only same-site paths are accepted as a place to go after sign-in (no open redirects). */
export function safeRedirect(target: string | null | undefined, fallback = "/"): string {
  if (!target) return fallback;
  const t = target.startsWith("/") ? target : `/${target}`;
  if (t.startsWith("//") || t.includes("\\") || !/^\/[\w\-./?=&%]*$/.test(t)) return fallback;
  return t;
}
