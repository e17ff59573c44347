// The 2026-07-28 lane's limits (docs/gateway.md#protocol-revisions).

/** How long a server's question waits for the client's retry with the answer. */
export const ASK_WAIT_MS = 10 * 60_000;
/** Questions the server asks within this long of each other go to the client together. */
export const ASK_GATHER_MS = 15;
/** Messages kept for a request while it waits for the client's retry (progress, logs), and their size. */
export const MAX_HELD = 100;
export const MAX_HELD_BYTES = 1024 * 1024;
/** Questions one call may have open at once: more are answered with an error. */
export const MAX_QUESTIONS = 16;
/** What the server may ask a client of this revision. */
export const QUESTIONS = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);
/** Listen streams one caller (key, token or sign-in) may hold on a deployment. */
export const MAX_LISTENS_PER_CALLER = 10;
export const MAX_STATE_LENGTH = 2048;
export const KEEPALIVE_MS = 15_000;
/** Calls in flight (or waiting for a retry) per deployment: as many as its sessions may have together. */
export const MAX_CALLS = 2000;
/** Open subscriptions/listen streams per deployment. */
export const MAX_LISTENS = 100;
export const MAX_LISTEN_URIS = 100;
