import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import type { Verdict } from "../fair-use.js";
import { RPC, type Msg } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import { GATEWAY_TEXT } from "../text.js";
import { readMessage, rpcError } from "../wire/http.js";
import type { TransportHost } from "./host.js";

// Fair use's refusal (fair-use.ts), on either transport.

/**
 * 429 with Retry-After: over the plan's requests a minute. A request with an id gets its
 * JSON-RPC error (on the legacy transport over the session's stream too, where its answers go)
 * and a request log row saying so.
 */
export async function rateLimited(
  h: TransportHost,
  req: IncomingMessage,
  res: ServerResponse,
  target: GatewayTarget,
  who: Caller,
  kind: string,
  query: string,
  v: Extract<Verdict, { ok: false }>,
  started: number,
) {
  const message = GATEWAY_TEXT.rateLimited(v.limit, v.scope, v.retryAfterSec);
  const headers = { "retry-after": String(v.retryAfterSec) };
  if (req.method !== "POST") return rpcError(res, 429, message, headers);
  const read = await readMessage(req, res, h.maxBodyBytes, h.budgetOf(req));
  if (!read) return;
  const { msg, bytes } = read;
  const id = msg.id ?? null;
  if (msg.method !== undefined && msg.id !== undefined) {
    const answer: Msg = { jsonrpc: "2.0", id: msg.id, error: { code: RPC.serverError, message } };
    h.onDone(req, target, msg, started, bytes, undefined, kind === "messages" ? "sse" : "streamable")(answer, 0, "rate_limited");
    if (kind === "messages")
      h.sessions.find(new URLSearchParams(query).get("sessionId") ?? "", who.userId, target.id, true)?.notify(answer);
  }
  rpcError(res, 429, message, headers, RPC.serverError, id);
}
