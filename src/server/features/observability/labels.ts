// Label values for the metrics. Every label has a small, fixed set of values: a client chooses
// the JSON-RPC method it sends and the path it requests, so anything outside the known set is
// folded into "other" rather than becoming a new time series (Prometheus keeps each one in memory).

/** The MCP methods a client may send (2025-06-18 and later, 2026-07-28's included); anything else is "other". */
const MCP_METHODS = new Set([
  "server/discover",
  "subscriptions/listen",
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
  "logging/setLevel",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tasks/cancel",
]);

export function mcpMethodLabel(method: string): string {
  return MCP_METHODS.has(method) ? method : "other";
}

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function httpMethodLabel(method: string): string {
  return HTTP_METHODS.has(method) ? method : "OTHER";
}

/**
 * The route a request matched, as registered ("/api/deploy/:owner/:name"), never the path itself.
 * "*" is the catch-all: the pages (React Router routes them itself) and paths nothing matched.
 */
export function routeLabel(pattern: string | undefined): string {
  if (!pattern || pattern === "/*") return "*";
  return pattern.length > 200 ? pattern.slice(0, 200) : pattern;
}

/** The status code as a label; anything outside 100..599 (never sent by this app) is "other". */
export function statusLabel(status: number): string {
  return status >= 100 && status < 600 ? String(status) : "other";
}
