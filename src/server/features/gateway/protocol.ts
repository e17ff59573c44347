import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { ANSWER_TOO_DEEP, PLATFORM_CLIENT_CAPABILITIES } from "../runtime/runner.js";

// What the gateway speaks, in one place: the JSON-RPC messages it routes, the error codes it
// answers with, the HTTP headers of its two transports and the MCP revisions it accepts. Messages
// are checked by hand (asMessage), never parsed with a schema: this is the hot path.

export type Id = string | number;

/** The parts of a JSON-RPC message the gateway routes by; everything else passes through untouched. */
export interface Msg {
  jsonrpc: "2.0";
  id?: Id | null;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: unknown;
  error?: unknown;
}

/** A one-message JSON-RPC body, or undefined when it is not one (batches are refused before this). */
export function asMessage(v: unknown): Msg | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const m = v as Msg;
  if (m.jsonrpc !== "2.0") return undefined;
  const idOk = m.id === undefined || typeof m.id === "string" || typeof m.id === "number";
  if (!idOk) return undefined;
  if (m.method !== undefined)
    return typeof m.method === "string" && (m.params === undefined || (typeof m.params === "object" && m.params !== null)) ? m : undefined;
  return m.id !== undefined && ("result" in m || "error" in m) ? m : undefined;
}

/** JSON-RPC error codes: the standard ones as the MCP SDK names them, and two of the server range (-32000 to -32099). */
export const RPC = {
  parseError: ErrorCode.ParseError,
  invalidRequest: ErrorCode.InvalidRequest,
  methodNotFound: ErrorCode.MethodNotFound,
  invalidParams: ErrorCode.InvalidParams,
  internal: ErrorCode.InternalError,
  /** the server is not running, did not answer in time, or refused the call (too many in flight) */
  serverError: -32000,
  /** the session id names no open session: the client initializes again */
  sessionNotFound: -32001,
} as const;

/** Header names as Node presents them (lower case); the gateway writes them the same way. */
export const HEADER = {
  sessionId: "mcp-session-id",
  protocolVersion: "mcp-protocol-version",
  lastEventId: "last-event-id",
} as const;

export const MEDIA = {
  json: "application/json",
  sse: "text/event-stream",
} as const;

/** Revisions the gateway speaks with sessions (initialize), oldest first. */
export const SUPPORTED_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;
export const LEGACY_VERSIONS = SUPPORTED_VERSIONS;
/** The stateless revision: no initialize, no sessions; every request says its version (stateless/envelope.ts). */
export const MODERN_VERSION = "2026-07-28";
export const LATEST_VERSION = SUPPORTED_VERSIONS.at(-1)!;
const SUPPORTED = new Set<string>(SUPPORTED_VERSIONS);
export const isSupportedVersion = (v: string) => SUPPORTED.has(v);
/** The legacy HTTP+SSE transport's revision. */
export const LEGACY_VERSION = "2024-11-05";
/** A Streamable HTTP session's revision until its initialize is answered (the transport's first). */
export const DEFAULT_VERSION = "2025-03-26";
/** Revisions whose clients accept a priming event (an id with empty data) and resume streams. */
export const PRIMING_FROM = "2025-11-25";

/**
 * The server is initialized as one client that can do everything the gateway can route; which
 * session may receive a sampling, elicitation or roots request is decided per session.
 */
export const GATEWAY_CLIENT = {
  capabilities: PLATFORM_CLIENT_CAPABILITIES,
  clientInfo: { name: "switchboard-gateway", version: "1.0.0" },
};

export interface ClientCapabilities {
  sampling: boolean;
  elicitation: boolean;
  roots: boolean;
}

export const NO_CAPABILITIES: Readonly<ClientCapabilities> = { sampling: false, elicitation: false, roots: false };

/** A JSON object (not an array, not null). */
export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Only the flags the gateway routes by: a client's capability object is never kept whole. */
export function capabilityFlags(caps: unknown): ClientCapabilities {
  const c = isObject(caps) ? caps : {};
  return { sampling: c.sampling !== undefined, elicitation: c.elicitation !== undefined, roots: c.roots !== undefined };
}

/** Which client capability a server-to-client request needs. */
export const CAPABILITY_NEEDED: Record<string, keyof ClientCapabilities> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

export const TOO_DEEP = ANSWER_TOO_DEEP;

/**
 * A message as JSON text. A hosted server can send valid JSON nested deeper than JavaScript can
 * serialize again (JSON.parse copes, JSON.stringify overflows the stack): an answer then becomes
 * a JSON-RPC error for its request, anything else is dropped (undefined), and the platform
 * carries on either way.
 */
export function serialize(msg: Msg): { text: string; sent: Msg } | undefined {
  try {
    return { text: JSON.stringify(msg), sent: msg };
  } catch {
    if (msg.method !== undefined || msg.id === undefined || msg.id === null) return undefined;
    const sent: Msg = { jsonrpc: "2.0", id: msg.id, error: { code: RPC.internal, message: TOO_DEEP } };
    return { text: JSON.stringify(sent), sent };
  }
}
