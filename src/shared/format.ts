// How the site writes sizes, durations, counts and dates, in one place so every page uses the same
// units: decimal bytes (1 kB = 1,000 B, as the request log always showed them), durations in
// milliseconds up to 10 s and in seconds beyond, counts with thousands separators, dates in
// English in UTC ("December 2, 2026"; "December 2, 2026, 14:05 UTC"), whatever the reader's locale
// and time zone, so a page rendered on the server reads the same once the browser hydrates it.

const count = new Intl.NumberFormat("en-US");

export function formatCount(n: number): string {
  return count.format(n);
}

/** One decimal place, without a trailing ".0". */
const oneDecimal = (n: number): string => formatCount(Math.round(n * 10) / 10);

export function formatBytes(n: number): string {
  if (n < 1000) return `${formatCount(n)} B`;
  if (n < 1_000_000) return `${oneDecimal(n / 1000)} kB`;
  return `${oneDecimal(n / 1_000_000)} MB`;
}

/** "0.5 ms", "12 ms", "1,234 ms", "12.3 s"; "–" when there is no duration. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "–";
  if (ms < 10) return `${oneDecimal(ms)} ms`;
  if (ms < 10_000) return `${formatCount(Math.round(ms))} ms`;
  return `${oneDecimal(ms / 1000)} s`;
}

// One formatter, created once: toLocaleDateString builds a new Intl formatter on every call, which
// showed up as the costliest line of a server page's render.
const day = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
const two = (n: number) => String(n).padStart(2, "0");

/** "December 2, 2026" (UTC) */
export function formatDate(at: string | Date): string {
  return day.format(new Date(at));
}

/** "December 2, 2026, 14:05 UTC"; with seconds "December 2, 2026, 14:05:09 UTC" (a request log's rows). */
export function formatDateTime(at: string | Date, opts: { seconds?: boolean } = {}): string {
  const d = new Date(at);
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}${opts.seconds ? `:${two(d.getUTCSeconds())}` : ""}`;
  return `${day.format(d)}, ${time} UTC`;
}
