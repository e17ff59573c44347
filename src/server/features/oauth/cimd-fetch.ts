import type { ClientMetadataResourceFetch } from "@better-auth/oauth-provider";
import { pinnedFetch, resolvePublic } from "../../net/safe-fetch.js";

// Client ID Metadata Documents are fetched through the project's pinned fetcher: https, public
// addresses only (resolved once, the connection pinned to the checked address), no redirects,
// limited in size and time. The cimd plugin validates the document and caches it.

/** What we read at most; the cimd plugin itself refuses documents over 5 KB with a clear error. */
const READ_LIMIT = 64 * 1024;
const TIMEOUT_MS = 5_000;

/**
 * Test-only (OAUTH_CIMD_ALLOW_HTTP_LOOPBACK=on, refused in production): a client_id on a `.test`
 * host (a name reserved for testing, never in public DNS) is fetched over plain http from
 * 127.0.0.1 on the same port and path, so tests can serve documents locally.
 */
export function testLoopbackHost(url: URL, allow: boolean): boolean {
  return allow && url.hostname.toLowerCase().endsWith(".test");
}

export function cimdTransport(opts: { allowTestLoopback: boolean }): ClientMetadataResourceFetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((v, k) => (headers[k] = v));
    try {
      return await pinnedFetch(url, {
        maxBytes: READ_LIMIT,
        timeoutMs: TIMEOUT_MS,
        headers,
        signal: init?.signal ?? undefined,
        loopbackHttp: testLoopbackHost(url, opts.allowTestLoopback) ? "127.0.0.1" : undefined,
      });
    } catch (e) {
      // An oversized document is reported by its declared size, so the plugin names the limit.
      if ((e as Error).message === "response too large") {
        return new Response(null, {
          status: 200,
          headers: { "content-type": "application/json", "content-length": String(READ_LIMIT + 1) },
        });
      }
      throw e;
    }
  };
}

/** Before any fetch: the document's host must resolve to public addresses only (the transport checks again and pins). */
export function cimdUrlAllowed(opts: { allowTestLoopback: boolean }) {
  return async (clientIdUrl: string): Promise<boolean> => {
    const url = new URL(clientIdUrl);
    if (testLoopbackHost(url, opts.allowTestLoopback)) return true;
    try {
      await resolvePublic(url);
      return true;
    } catch {
      return false;
    }
  };
}
