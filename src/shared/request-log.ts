import { z } from "zod";
import { formatCount, formatDuration } from "./format.js";

// The owners' request log and the public per-tool figures (docs/observability.md): what the API
// answers, the filters it takes, and the texts people read.

export const REQUEST_LOG_TEXT = {
  title: "Request log",
  /** a member's call on an organisation's deployment */
  by: (username: string) => `by ${username}`,
  empty: "No requests yet. Calls from any client appear here (the playground's own when you tick the box).",
  noMatch: "No requests match these filters.",
  loading: "Loading requests…",
  loadFailed: "Could not load the request log.",
  allMethods: "All methods",
  allOutcomes: "All outcomes",
  live: "Updated every 3 seconds while this tab is visible.",
  showPlayground: "Show the playground's requests",
  playgroundBadge: "Playground",
  wokeBadge: (ms: number) => `Woke in ${ms} ms`,
  wokeTitle: "The deployment was asleep: this request woke it and waited for it to start",
} as const;

export const OUTCOMES = ["ok", "error", "tool_error", "cancelled", "rate_limited"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const OUTCOME_LABEL: Record<Outcome, string> = {
  ok: "OK",
  error: "Error",
  tool_error: "Tool error",
  cancelled: "Cancelled",
  rate_limited: "Rate limited",
};

export const REQUEST_LOG_LIMIT = { default: 100, max: 500 } as const;

/** GET /api/deployments/{id}/requests: every filter is optional; an empty one means "any". */
// PostgreSQL text cannot hold NUL: a filter with one can match nothing, and is refused as bad input.
const noNul = (s: string) => !s.includes("\u0000");
export const requestLogQuery = z.object({
  method: z.string().max(100).refine(noNul, "Filters cannot contain NUL characters").optional(),
  name: z.string().max(200).refine(noNul, "Filters cannot contain NUL characters").optional(),
  outcome: z.enum(OUTCOMES).or(z.literal("")).optional(),
  limit: z.coerce.number().int().min(1).max(REQUEST_LOG_LIMIT.max).default(REQUEST_LOG_LIMIT.default),
  /** "1": the playground's own requests too (hidden by default) */
  playground: z.enum(["0", "1"]).optional(),
});
export type RequestLogQuery = z.output<typeof requestLogQuery>;

export const requestLogEntry = z.object({
  at: z.string(),
  client_name: z.string().nullable(),
  client_version: z.string().nullable(),
  method: z.string(),
  name: z.string().nullable(),
  duration_ms: z.number(),
  outcome: z.enum(OUTCOMES),
  error_code: z.number().int().nullable(),
  bytes_in: z.number().int(),
  bytes_out: z.number().int(),
  /** sent by the owner's playground */
  playground: z.boolean(),
  /** it waited for its sleeping deployment to wake: how long (ms) */
  woke_ms: z.number().int().nullable(),
  /** the member who called an organisation's deployment, by username (absent: its owner's own call) */
  caller: z.string().nullable().optional(),
});
export type RequestLogEntry = z.infer<typeof requestLogEntry>;

export const requestLogPage = z.object({
  requests: z.array(requestLogEntry),
  /** every method this deployment's log holds, for the filter menu */
  methods: z.array(z.string()),
});
export type RequestLogPage = z.infer<typeof requestLogPage>;

/** One tool's figures over the last 24 hours, summed over every deployment of the server. */
export const toolStat = z.object({
  name: z.string(),
  calls: z.number().int(),
  /** errors / calls, 0..1 */
  error_rate: z.number(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
});
export type ToolStat = z.infer<typeof toolStat>;

function percent(rate: number): string {
  const p = rate * 100;
  return `${p === 0 || p >= 10 ? Math.round(p) : Math.round(p * 10) / 10}%`;
}

/** "1,234 calls · 0.5% errors · p50 12 ms · p95 40 ms, last 24 h"; null when the tool had no calls. */
export function toolStatLine(s: ToolStat | undefined): string | null {
  if (!s || s.calls === 0) return null;
  return `${formatCount(s.calls)} call${s.calls === 1 ? "" : "s"} · ${percent(s.error_rate)} errors · p50 ${formatDuration(s.p50_ms)} · p95 ${formatDuration(s.p95_ms)}, last 24 h`;
}
