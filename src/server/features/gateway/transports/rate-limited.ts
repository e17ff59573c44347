import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../admission/access.js";
import type { Verdict } from "../fair-use.js";
import type { BodyBudget } from "../in-flight.js";
import type { whenAnswered } from "../observe.js";
import { RPC, type Msg } from "../protocol.js";
import type { GatewayTarget } from "../repo.js";
import type { Session } from "../sessions/session.js";
import type { Route } from "../steps.js";
import { GATEWAY_TEXT } from "../text.js";
import { readMessage, rpcError } from "../wire/http.js";

// Fair use's refusal (fair-use.ts), on either transport, by the front step (front.ts).

/** What the refusal asks of the step that refuses. */
export interface RefusalHost {
  /** GATEWAY_MAX_BODY_BYTES */
  readonly maxBodyBytes: number;
  budgetOf(req: IncomingMessage): BodyBudget | undefined;
  /** the request log's row, once the refusal is written */
  onDone(
    req: IncomingMessage,
    target: GatewayTarget,
    msg: Msg,
    started: number,
    bytesIn: number,
    transport: "streamable" | "sse",
  ): ReturnType<typeof whenAnswered>;
  /** the legacy session whose stream a refused request's answer also goes to, when sessions are served here */
  legacySession(sessionId: string, userId: string, deploymentId: string): Pick<Session, "notify"> | undefined;
}

/**
 * 429 with Retry-After: over the plan's requests a minute. A request with an id gets its
 * JSON-RPC error (on the legacy transport over the session's stream too, where its answers go)
 * and a request log row saying so.
 */
export async function rateLimited(
  h: RefusalHost,
  req: IncomingMessage,
  res: ServerResponse,
  target: GatewayTarget,
  who: Caller,
  route: Route,
  v: Extract<Verdict, { ok: false }>,
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
    const legacy = route.kind === "messages";
    h.onDone(req, target, msg, route.started, bytes, legacy ? "sse" : "streamable")(answer, 0, "rate_limited");
    if (legacy) h.legacySession(new URLSearchParams(route.query).get("sessionId") ?? "", who.userId, target.id)?.notify(answer);
  }
  rpcError(res, 429, message, headers, RPC.serverError, id);
}
