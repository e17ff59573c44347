import { resultOf, type ApiResult } from "../../shared/api-answer";

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
    return await resultOf<T>(res);
  } catch (e) {
    if ((e as Error).name === "AbortError") return { ok: false, status: 0, timedOut: true };
    return { ok: false, status: 0, network: true };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export { safeRedirect } from "../../shared/auth";
