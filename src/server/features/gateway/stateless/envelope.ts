import type { IncomingMessage } from "node:http";
import { CACHEABLE, MAY_ASK, METHOD_CAPABILITY, MODERN_METHODS } from "../methods.js";
import { isObject, LEGACY_VERSIONS, MODERN_VERSION, RPC, type Id, type Msg } from "../protocol.js";

// The 2026-07-28 revision's request rules (docs/gateway.md#protocol-revisions): no sessions, no
// initialize; every request carries its protocol version, client capabilities (and optionally its
// client's name and a log level) in `params._meta`, and names its method (and the tool, prompt or
// resource it is about) in headers. This file checks a request against those rules and says which
// error the revision prescribes; lane.ts serves the requests that pass.

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** The revision's own error codes (besides JSON-RPC's). */
export const MODERN_RPC = {
  headerMismatch: -32020,
  missingCapability: -32021,
  unsupportedVersion: -32022,
} as const;

// The methods and what each needs: methods.ts, the one list.
export { CACHEABLE, MAY_ASK, METHOD_CAPABILITY, MODERN_METHODS };

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** Every revision the gateway speaks: this one per request, the earlier ones through initialize. */
export const ALL_VERSIONS = [MODERN_VERSION, ...[...LEGACY_VERSIONS].reverse()];

/** The per-request fields a request carries, once checked. */
export interface Envelope {
  version: string;
  capabilities: Record<string, unknown>;
  client?: { name: string; version: string };
  logLevel?: (typeof LOG_LEVELS)[number];
}

/** A refusal the revision prescribes: HTTP status, JSON-RPC code and message, and data. */
export interface ModernRefusal {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** The request's claim to this revision: the protocol version in its _meta, when there is one. */
export function modernClaim(msg: Msg): unknown {
  const meta = msg.params?._meta;
  return isObject(meta) && META.protocolVersion in meta ? meta[META.protocolVersion] : undefined;
}

/** Whether a protocol version names this revision or a later one (the header of a modern request). */
export const isModernVersion = (v: string | undefined): boolean => v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v) && v >= MODERN_VERSION;

const mismatch = (what: string, data?: unknown): ModernRefusal => ({
  status: 400,
  code: MODERN_RPC.headerMismatch,
  message: `Bad Request: the request headers and body disagree: ${what}`,
  data,
});

/** Mcp-Name values outside plain visible ASCII come as =?base64?...?= */
export function decodeMcpName(v: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(v);
  if (!m) return v;
  const bytes = Buffer.from(m[1]!, "base64");
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : undefined;
}

const headerOf = (req: IncomingMessage, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Checks a request that claims this revision (or whose MCP-Protocol-Version header does) in the
 * order the revision's reference server does: envelope, header against claim, Mcp-Method, the
 * version itself, Mcp-Name, the method. Returns the envelope, or the refusal.
 */
export function checkModern(
  req: IncomingMessage,
  msg: Msg,
  serverCapabilities: Record<string, unknown> | undefined,
): { envelope: Envelope } | { refusal: ModernRefusal } {
  const meta = msg.params?._meta;
  const headerVersion = headerOf(req, "mcp-protocol-version");
  const claim = modernClaim(msg);
  if (claim === undefined) {
    // A modern header without the envelope: never served as an older revision.
    const missing = isObject(meta) ? [META.protocolVersion, META.clientCapabilities].filter((k) => !(k in meta)) : ["_meta"];
    if (msg.method === "initialize")
      return {
        refusal: mismatch(`an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header`, {
          mismatch: { header: headerVersion, body: "initialize" },
        }),
      };
    return {
      refusal: {
        status: 400,
        code: RPC.invalidParams,
        message: `Invalid params: the MCP-Protocol-Version header names protocol revision ${String(headerVersion).slice(0, 40)}, but the request is missing the required per-request envelope key(s): ${missing.join(", ")}`,
        data: { envelope: { missing } },
      },
    };
  }
  const bad = (key: string, problem: string): { refusal: ModernRefusal } => ({
    refusal: {
      status: 400,
      code: RPC.invalidParams,
      message: `Invalid _meta envelope for protocol revision ${MODERN_VERSION}: ${key}: ${problem}`,
      data: { envelope: { key, problem } },
    },
  });
  const m = meta as Record<string, unknown>;
  if (typeof claim !== "string" || claim.length === 0 || claim.length > 40) return bad(META.protocolVersion, "not a protocol version");
  if (!(META.clientCapabilities in m)) return bad(META.clientCapabilities, "missing");
  if (!isObject(m[META.clientCapabilities])) return bad(META.clientCapabilities, "not an object");
  let client: Envelope["client"];
  if (META.clientInfo in m) {
    const info = m[META.clientInfo];
    if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string")
      return bad(META.clientInfo, "not an Implementation (name and version)");
    client = { name: info.name.slice(0, 100), version: info.version.slice(0, 100) };
  }
  let logLevel: Envelope["logLevel"];
  if (META.logLevel in m) {
    const level = m[META.logLevel];
    if (!LOG_LEVELS.includes(level as never)) return bad(META.logLevel, "not a logging level");
    logLevel = level as Envelope["logLevel"];
  }
  if (headerVersion === undefined) return { refusal: mismatch("the required MCP-Protocol-Version header is absent") };
  if (headerVersion !== claim)
    return {
      refusal: mismatch(
        `the body envelope names protocol version ${claim} but the MCP-Protocol-Version header names ${headerVersion.slice(0, 40)}`,
        { mismatch: { header: headerVersion.slice(0, 40), body: claim } },
      ),
    };
  const method = msg.method!;
  const mcpMethod = headerOf(req, "mcp-method");
  if (mcpMethod !== undefined && mcpMethod !== method)
    return {
      refusal: mismatch(`the body names method ${method.slice(0, 100)} but the Mcp-Method header names ${mcpMethod.slice(0, 100)}`),
    };
  if (claim !== MODERN_VERSION) {
    return {
      refusal: {
        status: 400,
        code: MODERN_RPC.unsupportedVersion,
        message: `Unsupported protocol version: ${claim}`,
        data: { supported: ALL_VERSIONS, requested: claim },
      },
    };
  }
  if (mcpMethod === undefined) return { refusal: mismatch("the required Mcp-Method header is absent") };
  const named =
    method === "resources/read" ? msg.params?.uri : method === "tools/call" || method === "prompts/get" ? msg.params?.name : undefined;
  if (named !== undefined) {
    const raw = headerOf(req, "mcp-name");
    if (raw === undefined) return { refusal: mismatch("the required Mcp-Name header is absent") };
    const decoded = decodeMcpName(raw);
    if (decoded === undefined) return { refusal: mismatch("the Mcp-Name header is an invalid Base64 sentinel value") };
    if (decoded !== named)
      return {
        refusal: mismatch(`the body names ${String(named).slice(0, 200)} but the Mcp-Name header names "${decoded.slice(0, 200)}"`),
      };
  }
  const needs = METHOD_CAPABILITY[method];
  if (!MODERN_METHODS.has(method) || (needs && serverCapabilities && serverCapabilities[needs] === undefined)) {
    return { refusal: { status: 404, code: RPC.methodNotFound, message: "Method not found" } };
  }
  return { envelope: { version: claim, capabilities: m[META.clientCapabilities] as Record<string, unknown>, client, logLevel } };
}

/** Params as the hosted server (an earlier revision) expects them: the envelope, and a retry's answers and state, taken out. */
export function legacyParams(params: Msg["params"]): Msg["params"] {
  if (!params) return params;
  const { inputResponses: _r, requestState: _s, ...rest } = params as Record<string, unknown>;
  const meta = rest._meta as Record<string, unknown> | undefined;
  if (isObject(meta)) {
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(meta)) if (!k.startsWith("io.modelcontextprotocol/")) kept[k] = v;
    if (Object.keys(kept).length) rest._meta = kept;
    else delete rest._meta;
  }
  return rest as Msg["params"];
}

/** A JSON-RPC error answer with data. */
export function errorAnswer(id: Id | null | undefined, code: number, message: string, data?: unknown): Msg {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: "2.0", id: id ?? null, error };
}
