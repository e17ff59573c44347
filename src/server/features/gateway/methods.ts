// The MCP methods a client may send (2025-06-18 and later, 2026-07-28's included), once, with
// what the gateway and the metrics need of each: whether a 2026-07-28 (stateless) client may
// call it, the server capability it needs, whether its result carries caching hints, and whether
// it may be answered 'input_required'. Everything else a client sends is unknown here.

interface MethodFacts {
  /** a 2026-07-28 client may call it (anything else is 404 Method not found on that lane) */
  modern?: true;
  /** the server capability it needs: without it, the method does not exist on the stateless lane */
  capability?: "tools" | "prompts" | "resources" | "completions";
  /** its result carries caching hints (ttlMs, cacheScope) */
  cacheable?: true;
  /** it may be answered 'input_required' (the server asks the client something first) */
  mayAsk?: true;
}

const METHODS: Record<string, MethodFacts> = {
  "server/discover": { modern: true, cacheable: true },
  "subscriptions/listen": { modern: true },
  initialize: {},
  ping: {},
  "tools/list": { modern: true, capability: "tools", cacheable: true },
  "tools/call": { modern: true, capability: "tools", mayAsk: true },
  "prompts/list": { modern: true, capability: "prompts", cacheable: true },
  "prompts/get": { modern: true, capability: "prompts", mayAsk: true },
  "resources/list": { modern: true, capability: "resources", cacheable: true },
  "resources/templates/list": { modern: true, capability: "resources", cacheable: true },
  "resources/read": { modern: true, capability: "resources", cacheable: true, mayAsk: true },
  "resources/subscribe": {},
  "resources/unsubscribe": {},
  "completion/complete": { modern: true, capability: "completions" },
  "logging/setLevel": {},
  "tasks/get": {},
  "tasks/list": {},
  "tasks/result": {},
  "tasks/cancel": {},
};

const where = (f: (m: MethodFacts) => unknown) => new Set(Object.keys(METHODS).filter((k) => f(METHODS[k]!)));

/** Every method a client may send; the metrics fold anything else into "other". */
export const MCP_METHODS: ReadonlySet<string> = new Set(Object.keys(METHODS));
/** Methods a 2026-07-28 client may call; anything else (initialize, ping, logging/setLevel, resources/subscribe, ...) is 404 Method not found. */
export const MODERN_METHODS: ReadonlySet<string> = where((m) => m.modern);
/** The server capability a method needs: without it, the method does not exist here. */
export const METHOD_CAPABILITY: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(METHODS).flatMap(([k, m]) => (m.capability ? [[k, m.capability]] : [])),
);
/** Results that carry caching hints (ttlMs, cacheScope). */
export const CACHEABLE: ReadonlySet<string> = where((m) => m.cacheable);
/** Requests that may be answered 'input_required' (the server asks the client something first). */
export const MAY_ASK: ReadonlySet<string> = where((m) => m.mayAsk);
