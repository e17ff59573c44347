import type { ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import { RPC } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import { Session } from "../sessions/session.js";
import { GATEWAY_TEXT } from "../text.js";
import { rpcError } from "../wire/http.js";
import type { TransportHost } from "./host.js";

// The session a request names, and a new one for a caller: the same on both transports.

/** The session a request names (400 without one, 404 when it is not one of the caller's open sessions here). */
export function sessionOf(
  h: TransportHost,
  res: ServerResponse,
  id: string | undefined,
  target: GatewayTarget,
  who: Caller,
  legacy = false,
): Session | undefined {
  if (!id) return void rpcError(res, 400, GATEWAY_TEXT.sessionRequired);
  const s = h.sessions.find(id, who.userId, target.id, legacy);
  if (!s) return void rpcError(res, 404, GATEWAY_TEXT.sessionNotFound, {}, RPC.sessionNotFound);
  // A session opened with an OAuth token follows the client's refreshed tokens.
  if (s.token !== undefined && who.token !== undefined) s.token = who.token;
  return s;
}

export function newSession(who: Caller, target: GatewayTarget, mux: Session["mux"], legacy: boolean): Session {
  const s = new Session(who.userId, who.keyHash, target.id, mux, legacy);
  s.signIn = who.signIn;
  s.token = who.token;
  s.expiresAt = who.expiresAt;
  s.via = who.via;
  return s;
}
