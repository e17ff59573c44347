// W3C Trace Context (https://www.w3.org/TR/trace-context/): the traceparent a client sends in a
// request's _meta (or as a header). A value that does not parse starts a new trace; it is never
// an error, since a client's tracing must not break its calls.

export interface ParentContext {
  traceId: string;
  spanId: string;
  /** bit 0: the caller sampled this trace */
  traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

export function parseTraceparent(value: string | undefined): ParentContext | undefined {
  if (!value) return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  // ff is forbidden; version 00 has exactly four fields, later versions may add more after a dash.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) };
}

/**
 * The tracestate to carry on, or undefined when it is not a valid list: at most 32 members of
 * key=value, separated by commas (https://www.w3.org/TR/trace-context/#tracestate-header).
 */
export function cleanTracestate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const members = value
    .split(",")
    .map((m) => m.trim())
    .filter(Boolean);
  if (members.length === 0 || members.length > 32) return undefined;
  const member = /^[a-z0-9][_0-9a-z\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
  return members.every((m) => member.test(m)) ? members.join(",") : undefined;
}
