import type { IncomingMessage } from "node:http";
import type { ServerKind } from "~/shared/deployments.js";
import type { Logger } from "../../log.js";
import type { Msg } from "./protocol.js";
import type { GatewayTarget } from "./repo.js";

// What the gateway tells observers about each request it answered for a session: the request log
// (features/request-log), the Prometheus metrics and the traces (features/observability). They are
// told after the answer went out, on the hot path: an observer only queues what it needs, and
// writes it elsewhere later. Arguments and results are never part of a record.

/** How a request ended: an answer, a JSON-RPC error, a tool result with isError, or the client cancelled it. */
export type CallOutcome = "ok" | "error" | "tool_error" | "cancelled" | "rate_limited";

export interface CallRecord {
  /** when the request reached the gateway (epoch ms, with fractions) */
  startedAt: number;
  /** when it was forwarded to the server (epoch ms), when it was */
  forwardedAt?: number;
  durationMs: number;
  deploymentId: string;
  serverKind: ServerKind;
  serverRef: string;
  /** the deployment's owner: a person, or an organisation's account */
  userId: string;
  /** the member who called an organisation's deployment (absent: its owner did) */
  callerId?: string;
  /** the client's name and version from its initialize (at most 100 characters each) */
  client?: { name: string; version: string };
  /** the JSON-RPC method (at most 100 characters) */
  method: string;
  /** the tool or prompt name, or the resource URI (at most 200 characters) */
  name?: string;
  outcome: CallOutcome;
  /** the JSON-RPC error code, when outcome is "error" */
  errorCode?: number;
  bytesIn: number;
  bytesOut: number;
  transport: "streamable" | "sse";
  /** sent by the owner's playground (the page's sign-in): the owner's own tries, shown apart and never counted as use */
  playground?: true;
  /** the request waited for its sleeping deployment to wake: how long (ms) */
  wokeMs?: number;
  /** W3C trace context the client sent: `_meta.traceparent` of the request, else its traceparent header */
  traceparent?: string;
  tracestate?: string;
}

export interface GatewayObserver {
  /** a request with an id was answered (or refused by the gateway) in one of this gateway's sessions */
  callDone(record: CallRecord): void;
}

/** Several observers as one; none is the common case and costs nothing. */
export function observers(list: readonly (GatewayObserver | undefined)[]): GatewayObserver | undefined {
  const all = list.filter((o): o is GatewayObserver => o !== undefined);
  if (all.length === 0) return undefined;
  if (all.length === 1) return all[0];
  return {
    callDone: (r) => {
      for (const o of all) o.callDone(r);
    },
  };
}

// Client- and server-chosen strings, kept short and storable: PostgreSQL text refuses NUL, and one
// such value would fail the batch it is written in.
// eslint-disable-next-line no-control-regex -- NUL is what PostgreSQL refuses
export const clip = (v: unknown, n: number) => (typeof v === "string" ? v.slice(0, n).replace(/\u0000/g, "") : undefined);
const INT32 = 2 ** 31 - 1;

/** The name a request is about: a tool or prompt name, or a resource URI. */
export function requestName(method: string | undefined, params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  if (method === "tools/call" || method === "prompts/get") return clip(params.name, 200);
  if (method === "resources/read" || method === "resources/subscribe" || method === "resources/unsubscribe") return clip(params.uri, 200);
  return undefined;
}

/** The client's own name and version from an initialize request's params. */
export function clientOf(params: Record<string, unknown> | undefined): { name: string; version: string } | undefined {
  const info = params?.clientInfo;
  if (!info || typeof info !== "object") return undefined;
  const i = info as Record<string, unknown>;
  const name = clip(i.name, 100);
  return name ? { name, version: clip(i.version, 100) ?? "" } : undefined;
}

/** ok, error (with its code, when it is a 32-bit integer as JSON-RPC says) or tool_error, from the answer the client got; cancelled without one. */
export function outcomeOf(answer: { result?: unknown; error?: unknown } | undefined): { outcome: CallOutcome; errorCode?: number } {
  if (answer === undefined) return { outcome: "cancelled" };
  if (answer.error !== undefined) {
    const code = (answer.error as { code?: unknown } | null)?.code;
    return { outcome: "error", errorCode: Number.isInteger(code) && Math.abs(code as number) <= INT32 ? (code as number) : undefined };
  }
  const r = answer.result as { isError?: unknown } | null | undefined;
  return { outcome: r && typeof r === "object" && r.isError === true ? "tool_error" : "ok" };
}

/** W3C trace context from the request's _meta (MCP's place for it), else its HTTP header. */
export function traceContext(
  params: Record<string, unknown> | undefined,
  headers: Record<string, string | string[] | undefined>,
): { traceparent?: string; tracestate?: string } {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const fromMeta = clip(meta?.traceparent, 100);
  if (fromMeta) return { traceparent: fromMeta, tracestate: clip(meta?.tracestate, 512) };
  const h = headers.traceparent;
  const s = headers.tracestate;
  return typeof h === "string" ? { traceparent: clip(h, 100), tracestate: clip(s, 512) } : {};
}

/**
 * Requests the owner's playground sent (the gateway admitted them by the page's sign-in, not a key
 * or token): they are the owner trying their own server, so they count neither in 'Total Usage'
 * nor in popularity, and the request log marks them.
 */
const fromPlayground = new WeakSet<IncomingMessage>();
export const markPlayground = (req: IncomingMessage) => void fromPlayground.add(req);
export const isPlayground = (req: IncomingMessage | undefined) => req !== undefined && fromPlayground.has(req);

/** Requests a member sent to their organisation's deployment (features/orgs/accounts.ts): who, for the request log. */
const byMember = new WeakMap<IncomingMessage, string>();
export const markMember = (req: IncomingMessage, userId: string) => void byMember.set(req, userId);

/** Requests that waited for their sleeping deployment to wake, with how long (the request log's 'woke' marker). */
const woken = new WeakMap<IncomingMessage, number>();
export const markWoke = (req: IncomingMessage, ms: number) => void woken.set(req, ms);
export const wokeMs = (req: IncomingMessage): number | undefined => woken.get(req);

/** A request being answered: what its record is made of. */
export interface Answering {
  req: IncomingMessage;
  target: GatewayTarget;
  msg: Msg;
  /** performance.now() when it arrived */
  started: number;
  bytesIn: number;
  client: CallRecord["client"];
  transport: CallRecord["transport"];
}

/**
 * What happens once a request is answered: a log line, and a record for the observer. Called when
 * it is forwarded; the function it returns, with the answer (or with `refused` when the gateway
 * refused it itself).
 */
export function whenAnswered(log: Logger, observer: GatewayObserver | undefined, a: Answering) {
  const { req, target, msg, started } = a;
  const name = requestName(msg.method, msg.params);
  const method = clip(msg.method, 100) ?? "";
  const forwardedAt = performance.timeOrigin + performance.now();
  return (answer: Msg | undefined, bytesOut: number, refused?: "rate_limited") => {
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    const judged = outcomeOf(answer);
    const outcome = refused ?? judged.outcome;
    log.info({ deployment: target.id, method, name, status: outcome, ms: durationMs }, "mcp request");
    observer?.callDone({
      startedAt: performance.timeOrigin + started,
      forwardedAt,
      durationMs,
      deploymentId: target.id,
      serverKind: target.serverKind,
      serverRef: target.serverRef,
      userId: target.userId,
      client: a.client,
      method,
      name,
      outcome,
      errorCode: judged.errorCode,
      bytesIn: a.bytesIn,
      bytesOut,
      transport: a.transport,
      ...(fromPlayground.has(req) ? { playground: true as const } : {}),
      ...(byMember.has(req) ? { callerId: byMember.get(req) } : {}),
      ...(woken.has(req) ? { wokeMs: woken.get(req) } : {}),
      ...traceContext(msg.params, req.headers),
    });
  };
}
