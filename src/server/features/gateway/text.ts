import { API_KEY_TEXT } from "~/shared/publishers.js";
import { SUPPORTED_VERSIONS } from "./protocol.js";

/** What the gateway answers a client with, word for word (see docs/gateway.md). */
export const GATEWAY_TEXT = {
  missingKey: "Missing API key: send Authorization: Bearer <one of your API keys>",
  invalidKey: "Invalid or revoked API key",
  /** any refused Bearer value not shaped like an API key: it may be a mistyped key as well as an OAuth access token */
  invalidToken: "Invalid or revoked API key or access token",
  keyInQuery: "API keys are not accepted in the URL; send Authorization: Bearer <key>",
  notFound: "Not found",
  /** to its owner only (their key, token or browser): a URL whose deployment was stopped answers again once the server is deployed again */
  stopped:
    "This MCP server is stopped: its owner stopped or removed it. Deploy or connect it again (the URL stays the same) and this client carries on once it runs.",
  badHost: "Forbidden: the Host header does not name this server",
  badOrigin: "Forbidden: requests from this origin are not accepted",
  notAcceptable: "Not Acceptable: the client must accept both application/json and text/event-stream",
  notAcceptableSse: "Not Acceptable: the client must accept text/event-stream",
  unsupportedMedia: "Unsupported Media Type: send Content-Type: application/json",
  tooLarge: "Payload Too Large",
  parse: "Parse error: the body is not valid JSON",
  invalid: "Invalid Request: not a JSON-RPC 2.0 message",
  batch: "Invalid Request: batches are not supported; send one JSON-RPC message per request",
  sessionRequired: "Bad Request: Mcp-Session-Id header is required",
  sessionNotFound: "Session not found: it ended or expired; initialize a new session",
  badVersion: (v: string) =>
    `Bad Request: unsupported MCP-Protocol-Version ${v.slice(0, 40)} (supported: ${SUPPORTED_VERSIONS.join(", ")})`,
  expiredKey: API_KEY_TEXT.expired,
  keyScope: API_KEY_TEXT.missingScope,
  keyNotForThis: API_KEY_TEXT.notForThisServer,
  rateLimited: (limit: number, scope: "deployment" | "credential", seconds: number) =>
    `Too Many Requests: its plan allows ${limit.toLocaleString("en-US")} requests a minute ${scope === "deployment" ? "to one deployment" : "with one key"}; try again in ${seconds} s`,
  inFlight: (scope: "deployment" | "credential", capBytes: number) =>
    scope === "deployment"
      ? `Service Unavailable: this deployment already has ${Math.round(capBytes / 1024 / 1024)} MB of requests in flight; try again once they are answered`
      : `Too Many Requests: this key already has ${Math.round(capBytes / 1024 / 1024)} MB of requests in flight; try again once they are answered`,
  tooManySessions: (n: number) =>
    `Too Many Requests: this deployment already has ${n} open sessions; end unused ones (DELETE) or let them expire`,
  conflict: "Conflict: this session already has an open SSE stream",
  starting: "The MCP server is starting or restarting; try again in a few seconds",
  notRunning: "The MCP server is not running; deploy it again from its page",
  methodNotAllowed: "Method Not Allowed",
  internal: "Internal error",
} as const;
