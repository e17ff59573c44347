import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import { announcingToolChanges } from "../exposure.js";
import { clientOf } from "../observe.js";
import { capabilityFlags, HEADER, RPC, type Msg } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import type { Session } from "../sessions/session.js";
import { GATEWAY_TEXT } from "../text.js";
import { rpcError, sendJson } from "../wire/http.js";
import type { TransportHost } from "./host.js";
import { newSession } from "./session-of.js";

// initialize on either transport: a new Streamable HTTP session, or the legacy stream's own.

/** initialize: a new session (or the legacy stream's), answered from the server's cached result for that protocol version. */
export async function initialize(
  h: TransportHost,
  req: IncomingMessage,
  res: ServerResponse,
  target: GatewayTarget,
  who: Caller,
  msg: Msg,
  started: number,
  bytesIn: number,
  existing?: Session,
) {
  const fail = (status: number, message: string, headers: Record<string, string> = {}) =>
    existing
      ? existing.notify({ jsonrpc: "2.0", id: msg.id!, error: { code: RPC.serverError, message } })
      : rpcError(res, status, message, headers, RPC.serverError, msg.id);
  const mux = existing?.mux ?? h.sessions.mux(target.id);
  if (!mux || mux.dead) {
    const u = h.unavailable(target);
    return fail(u.status, u.message, u.headers);
  }
  if (!existing && !h.sessions.makeRoom(mux)) return fail(429, GATEWAY_TEXT.tooManySessions(mux.sessions.size));
  let answer: Msg;
  try {
    answer = await mux.initialize(msg.params);
  } catch (e) {
    answer = { jsonrpc: "2.0", error: { code: RPC.serverError, message: (e as Error).message } };
  }
  const reply: Msg = { jsonrpc: "2.0", id: msg.id! };
  if (answer.error) reply.error = answer.error;
  else reply.result = announcingToolChanges(answer.result);
  const session = existing ?? newSession(who, target, mux, false);
  session.client = clientOf(msg.params);
  const body = JSON.stringify(reply);
  h.onDone(req, target, msg, started, bytesIn, session.client, existing ? "sse" : "streamable")(reply, Buffer.byteLength(body));
  if (!answer.error && !mux.dead) {
    h.count(res, target);
    session.protocolVersion = (answer.result as { protocolVersion: string }).protocolVersion;
    session.capabilities = capabilityFlags(msg.params?.capabilities);
    if (!existing) h.sessions.add(session);
  }
  if (existing) return existing.notify(reply);
  sendJson(res, 200, body, h.sessions.has(session) ? { [HEADER.sessionId]: session.id } : {});
}
