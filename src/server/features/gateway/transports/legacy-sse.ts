import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import { LEGACY_VERSION, MEDIA } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import { GATEWAY_TEXT } from "../text.js";
import { accepts, readMessage, rpcError } from "../wire/http.js";
import { LegacyReply } from "../wire/replies.js";
import type { TransportHost } from "./host.js";
import { initialize } from "./initialize.js";
import { newSession, sessionOf } from "./session-of.js";

// Legacy HTTP+SSE: GET /{proxy_id}/sse opens the stream that is the session; its client POSTs
// messages to /{proxy_id}/messages?sessionId=..., and every answer goes down that one stream.

/** The stream is the session; the endpoint event names where to POST. */
export function legacyOpen(
  h: TransportHost,
  req: IncomingMessage,
  res: ServerResponse,
  target: GatewayTarget,
  who: Caller,
  proxyId: string,
) {
  if (!accepts(req.headers.accept ?? MEDIA.sse, MEDIA.sse)) return rpcError(res, 406, GATEWAY_TEXT.notAcceptableSse);
  const mux = h.sessions.mux(target.id);
  if (!mux) {
    const u = h.unavailable(target);
    return rpcError(res, u.status, u.message, u.headers);
  }
  if (!h.sessions.makeRoom(mux)) return rpcError(res, 429, GATEWAY_TEXT.tooManySessions(mux.sessions.size));
  const session = newSession(who, target, mux, true);
  session.protocolVersion = LEGACY_VERSION;
  const stream = session.openStandalone(res);
  if (!stream) return; // the client already left
  h.sessions.add(session);
  stream.onDetach = () => h.sessions.end(session);
  stream.writeRaw(`event: endpoint\ndata: /${proxyId}/messages?sessionId=${session.id}\n\n`);
}

export async function legacyPost(
  h: TransportHost,
  req: IncomingMessage,
  res: ServerResponse,
  target: GatewayTarget,
  who: Caller,
  sessionId: string,
  started: number,
) {
  if (!sessionOf(h, res, sessionId, target, who, true)) return;
  const read = await readMessage(req, res, h.maxBodyBytes, h.budgetOf(req));
  if (!read) return;
  const { msg, bytes } = read;
  // The stream may have closed while the body arrived.
  const session = sessionOf(h, res, sessionId, target, who, true);
  if (!session) return;
  if (msg.method === "initialize" && msg.id !== undefined) {
    res.writeHead(202).end("Accepted");
    return initialize(h, req, res, target, who, msg, started, bytes, session);
  }
  if (msg.method !== undefined && msg.id !== undefined) {
    // Forwarded before the 202, so the 202 can say it was counted.
    const done = h.onDone(req, target, msg, started, bytes, session.client, "sse");
    if (session.mux.forward(session, msg, new LegacyReply(session, done), h.exposures.of(target))) h.count(res, target);
    res.writeHead(202).end("Accepted");
    return;
  }
  res.writeHead(202).end("Accepted");
  if (msg.method !== undefined) session.mux.notifyServer(session, msg);
  else session.mux.answerServer(session, msg);
}
