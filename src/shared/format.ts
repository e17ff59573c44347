// How the site writes sizes, durations and counts, in one place so every page uses the same
// units: decimal bytes (1 kB = 1,000 B, as the request log always showed them), durations in
// milliseconds up to 10 s and in seconds beyond, counts with thousands separators.

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
