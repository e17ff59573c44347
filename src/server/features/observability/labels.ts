// Label values for the metrics. Every label has a small, fixed set of values: a client chooses
// the JSON-RPC method it sends and the path it requests, so anything outside the known set is
// folded into "other" rather than becoming a new time series (Prometheus keeps each one in memory).
import { MCP_METHODS } from "../gateway/methods.js";

/** The MCP methods a client may send (gateway/methods.ts, the one list); anything else is "other". */
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
