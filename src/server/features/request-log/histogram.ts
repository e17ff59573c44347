// Latency of tools/call as counts over fixed buckets: hourly rows of every process and every
// deployment add up bucket by bucket, and percentiles come from the sum by interpolation. Finer
// at the fast end, where most tools answer. Changing the bounds makes older rows (at most 48 h)
// misread, so change them only with a migration that clears tool_stats.

/** Upper bounds (inclusive, ms) of all buckets but the last, which takes anything slower. */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000] as const;
export const BUCKETS = LATENCY_BOUNDS_MS.length + 1;

export function emptyBuckets(): number[] {
  return new Array<number>(BUCKETS).fill(0);
}

/** The bucket a duration falls in. */
export function bucketOf(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length;
}

/** Adds `b` into `a` (missing trailing counts are zeros). */
export function addBuckets(a: number[], b: readonly number[]): number[] {
  for (let i = 0; i < BUCKETS; i++) a[i] = (a[i] ?? 0) + (b[i] ?? 0);
  return a;
}

/**
 * The q-quantile (0..1) of the durations counted in `buckets`, assuming they spread evenly
 * inside their bucket; null without any count. The open last bucket answers its lower bound.
 */
export function quantile(buckets: readonly number[], q: number): number | null {
  const total = buckets.reduce((s, n) => s + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < BUCKETS; i++) {
    const n = buckets[i] ?? 0;
    if (n > 0 && below + n >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      if (i === LATENCY_BOUNDS_MS.length) return lower;
      const upper = LATENCY_BOUNDS_MS[i]!;
      return lower + ((upper - lower) * Math.max(0, rank - below)) / n;
    }
    below += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
}
