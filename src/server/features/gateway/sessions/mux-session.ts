import type { ClientCapabilities, Msg } from "../protocol.js";

// What the Mux (mux.ts) needs of the peers it multiplexes: a client session (the gateway's
// Session, a 2026-07-28 call or listen stream) and the outlet of each of its requests.

/** What the mux needs of a client session (the gateway's Session). */
export interface MuxSession {
  /** client request id (see idKey) -> the id the gateway gave it on the server side */
  readonly inflight: Map<string, string>;
  readonly subscriptions: Set<string>;
  readonly capabilities: ClientCapabilities;
  readonly lastActive: number;
  /** the GET stream (Streamable HTTP) or the /sse stream (legacy), when it has one */
  readonly standalone?: unknown;
  /** a stream of it is open (a session's GET or /sse stream, a listen stream, a 2026-07-28 request): it is never evicted as idle */
  readonly hasOpenStream: boolean;
  /** A notification or server request with no request of this session to ride on. */
  notify(msg: Msg): boolean;
  close(): void;
  /** not to be given the server's unlabelled messages (a 2026-07-28 call waiting for its client, a listen stream) */
  readonly parked?: boolean;
}

/** Where the messages of one client request go: its own POST response or the legacy stream. */
export interface Outlet {
  push(msg: Msg, final: boolean): void;
  /** the client cancelled the request: end its response without an answer */
  abandon(): void;
}
