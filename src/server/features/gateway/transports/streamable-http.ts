import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import { HEADER, isSupportedVersion, MEDIA } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import { isModernVersion, modernClaim } from "../stateless/envelope.js";
import { GATEWAY_TEXT } from "../text.js";
import { accepts, header, readMessage, rpcError } from "../wire/http.js";
import { HttpReply } from "../wire/replies.js";
import type { TransportHost } from "./host.js";
import { initialize } from "./initialize.js";
import { sessionOf } from "./session-of.js";

// Streamable HTTP at /{proxy_id}/mcp: POST a message (2026-07-28 requests go to the stateless
// lane), GET the session's stream (resumed with Last-Event-ID), DELETE to end the session.

export async function streamablePost(
  h: TransportHost,
  req: IncomingMessage,
  res: ServerResponse,
  target: GatewayTarget,
  who: Caller,
  started: number,
) {
  if (!(accepts(req.headers.accept, MEDIA.json) && accepts(req.headers.accept, MEDIA.sse)))
    return rpcError(res, 406, GATEWAY_TEXT.notAcceptable);
  if (!req.headers["content-type"]?.toLowerCase().startsWith(MEDIA.json)) return rpcError(res, 415, GATEWAY_TEXT.unsupportedMedia);
  const read = await readMessage(req, res, h.maxBodyBytes, h.budgetOf(req));
  if (!read) return;
  const { msg, bytes } = read;
  // 2026-07-28: the request says so in its _meta (or its header does); no session.
  if (modernClaim(msg) !== undefined || isModernVersion(header(req, HEADER.protocolVersion)))
    return h.stateless.post(req, res, target, who, msg, bytes, started);
  if (msg.method === "initialize" && msg.id !== undefined) return initialize(h, req, res, target, who, msg, started, bytes);
  if (!versionOk(req, res)) return;
  const session = sessionOf(h, res, header(req, HEADER.sessionId), target, who);
  if (!session) return;
  if (msg.method !== undefined && msg.id !== undefined) {
    const done = h.onDone(req, target, msg, started, bytes, session.client, "streamable");
    if (session.mux.forward(session, msg, new HttpReply(res, session, done), h.exposures.of(target))) h.count(res, target);
    return;
  }
  if (msg.method !== undefined) session.mux.notifyServer(session, msg);
  else session.mux.answerServer(session, msg);
  res.writeHead(202).end();
}

function versionOk(req: IncomingMessage, res: ServerResponse): boolean {
  const version = header(req, HEADER.protocolVersion);
  if (version === undefined || isSupportedVersion(version)) return true;
  rpcError(res, 400, GATEWAY_TEXT.badVersion(version));
  return false;
}

export function streamableGet(h: TransportHost, req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller) {
  if (!accepts(req.headers.accept, MEDIA.sse)) return rpcError(res, 406, GATEWAY_TEXT.notAcceptableSse);
  if (!versionOk(req, res)) return;
  const session = sessionOf(h, res, header(req, HEADER.sessionId), target, who);
  if (!session) return;
  const last = header(req, HEADER.lastEventId);
  const found = last ? session.findStream(last) : undefined;
  // One GET stream at a time, resumed or not.
  if (found ? found.stream === session.standalone && found.stream.attached : session.standalone?.attached)
    return rpcError(res, 409, GATEWAY_TEXT.conflict);
  // A finished stream with nothing left to replay (a cancelled call's): 204, so the client neither
  // waits on an empty stream nor, as SDK clients do when one closes, asks again for a new one.
  if (found?.stream.exhausted(found.after)) return void res.writeHead(204).end();
  if (found) session.resume(found, res);
  else session.openStandalone(res);
}

export function streamableDelete(h: TransportHost, req: IncomingMessage, res: ServerResponse, target: GatewayTarget, who: Caller) {
  if (!versionOk(req, res)) return;
  const session = sessionOf(h, res, header(req, HEADER.sessionId), target, who);
  if (!session) return;
  h.sessions.end(session);
  res.writeHead(200).end();
}
