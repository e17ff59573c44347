import { isObject, RPC, type Msg } from "../protocol.js";
import { ALL_VERSIONS, CACHEABLE, META } from "./envelope.js";

// What the hosted server (an earlier revision) says, as a 2026-07-28 client expects it.

/** The server's result as this revision's clients expect it: resultType, caching hints, the server's identity; nothing of what this revision removed. */
export function modernAnswer(method: string, answer: Msg, serverInfo: unknown): Msg {
  if (answer.error !== undefined) {
    const e = answer.error as { code?: unknown; message?: unknown; data?: unknown };
    // "Resource not found" is -32602 with the URI in this revision.
    if (e && e.code === -32002)
      return {
        ...answer,
        error: { code: RPC.invalidParams, message: String(e.message ?? "Resource not found"), data: isObject(e.data) ? e.data : {} },
      };
    return answer;
  }
  const r: Record<string, unknown> = isObject(answer.result) ? { ...answer.result } : {};
  r.resultType = "complete";
  if (CACHEABLE.has(method)) {
    // What a client sees depends on who it is (hidden tools, pinned definitions): never shared, never cached long.
    r.ttlMs = typeof r.ttlMs === "number" && Number.isInteger(r.ttlMs) && r.ttlMs >= 0 ? Math.min(r.ttlMs, 60_000) : 0;
    r.cacheScope = "private";
  }
  if (method === "tools/list" && Array.isArray(r.tools))
    r.tools = r.tools.map((t) => (isObject(t) && "execution" in t ? (({ execution: _, ...rest }) => rest)(t) : t));
  const meta = isObject(r._meta) ? { ...r._meta } : {};
  if (serverInfo !== undefined) meta[META.serverInfo] = serverInfo;
  r._meta = meta;
  return { ...answer, result: r };
}

/** server/discover, from the server's initialize result: the revisions spoken here, its capabilities (lists announced as changing), instructions. */
export function discoverResult(init: { capabilities?: Record<string, unknown>; instructions?: unknown }): Record<string, unknown> {
  const caps: Record<string, unknown> = { ...(init.capabilities ?? {}) };
  delete caps.tasks;
  for (const list of ["tools", "prompts", "resources"]) if (isObject(caps[list])) caps[list] = { ...caps[list], listChanged: true };
  const r: Record<string, unknown> = { supportedVersions: ALL_VERSIONS, capabilities: caps };
  if (typeof init.instructions === "string") r.instructions = init.instructions;
  return r;
}

/** What the server said of itself when the gateway initialized it. */
export interface ServerFacts {
  capabilities?: Record<string, unknown>;
  serverInfo?: unknown;
  instructions?: unknown;
}
