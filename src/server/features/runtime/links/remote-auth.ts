// A connection signed in with OAuth (features/connections/upstream-oauth.ts), as its link sees it:
// when the sign-in is gone for good, and one refresh for the requests that find the token expired together.
import { CONNECTION_TEXT } from "~/shared/connections.js";
import type { FetchLike } from "../../../net/upstream-fetch.js";

/**
 * The server's authorization server no longer takes the connection's sign-in (the refresh was
 * refused or the grant revoked): only its owner can mend it, so the runner does not reconnect.
 */
export class SignInNeeded extends Error {
  readonly final = true;
  constructor() {
    super(CONNECTION_TEXT.signInAgain);
    this.name = "SignInNeeded";
  }
}

/** A refusal the owner must mend by signing in again: the sign-in is gone, or the server refuses a fresh token. */
export const signInGone = (e: unknown, auth: boolean) =>
  e instanceof SignInNeeded ||
  (auth && ((e as { code?: unknown })?.code === 401 || /\bUnauthorized\b/.test(String((e as Error)?.message))));

/**
 * Requests answered 401 together each ask the SDK to refresh the token (one after the other, as
 * their answers arrive): with refresh tokens that rotate, that spends a refresh per request, and a
 * refresh token used twice is refused and the sign-in lost. So one refresh per refresh token, its
 * answer shared; and a refresh asked with the token a refresh has just given (within half its
 * access token's life, at most 5 s) gets that same answer: its access token is fresh.
 */
export function refreshOnce(fetch: FetchLike): FetchLike {
  type Answer = { status: number; statusText: string; headers: [string, string][]; body: string };
  const byToken = new Map<string, Promise<Answer>>();
  return async (input, init) => {
    const body = init?.body;
    const token = body instanceof URLSearchParams && body.get("grant_type") === "refresh_token" ? body.get("refresh_token") : null;
    if (!token) return fetch(input, init);
    let answer = byToken.get(token);
    if (!answer) {
      const asked = fetch(input, init).then(async (r) => ({
        status: r.status,
        statusText: r.statusText,
        headers: [...r.headers],
        body: await r.text(),
      }));
      answer = asked;
      byToken.set(token, asked);
      asked.then(
        (a) => {
          const forget = (key: string, ms: number) => void setTimeout(() => byToken.get(key) === asked && byToken.delete(key), ms).unref();
          forget(token, 60_000);
          let given: { refresh_token?: unknown; expires_in?: unknown } = {};
          try {
            given = a.status === 200 ? JSON.parse(a.body) : {};
          } catch {
            // not tokens: nothing to share
          }
          if (typeof given.refresh_token === "string" && given.refresh_token !== token) {
            byToken.set(given.refresh_token, asked);
            const life = typeof given.expires_in === "number" ? given.expires_in * 500 : 5000;
            forget(given.refresh_token, Math.min(5000, life));
          }
        },
        () => byToken.delete(token),
      );
    }
    const a = await answer;
    return new Response(a.body, { status: a.status, statusText: a.statusText, headers: a.headers });
  };
}
