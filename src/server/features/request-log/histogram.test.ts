import { describe, expect, it } from "vitest";
import { toolStatLine } from "~/shared/request-log.js";
import { addBuckets, bucketOf, BUCKETS, emptyBuckets, LATENCY_BOUNDS_MS, quantile } from "./histogram.js";

const histogramOf = (durations: number[]) => {
  const b = emptyBuckets();
  for (const d of durations) b[bucketOf(d)]!++;
  return b;
};

describe("latency histogram", () => {
  it("puts a duration in the first bucket whose upper bound holds it, anything slower in the last", () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1)).toBe(0);
    expect(bucketOf(1.01)).toBe(1);
    expect(bucketOf(12)).toBe(LATENCY_BOUNDS_MS.indexOf(20));
    expect(bucketOf(60_000)).toBe(LATENCY_BOUNDS_MS.length - 1);
    expect(bucketOf(3_600_000)).toBe(BUCKETS - 1);
  });

  it("interpolates percentiles inside the bucket the rank falls in", () => {
    // 100 calls spread evenly over (10, 20] ms: p50 is about 15 ms and p95 about 19.5 ms.
    const b = emptyBuckets();
    b[bucketOf(15)] = 100;
    expect(quantile(b, 0.5)).toBeCloseTo(15, 5);
    expect(quantile(b, 0.95)).toBeCloseTo(19.5, 5);
    // 90 fast calls (<= 1 ms) and 10 slow ones in (500, 1000]: p50 within 1 ms, p95 half-way up the slow bucket.
    const mixed = addBuckets(histogramOf(Array.from({ length: 90 }, () => 0.5)), histogramOf(Array.from({ length: 10 }, () => 700)));
    expect(quantile(mixed, 0.5)).toBeCloseTo(50 / 90, 5);
    expect(quantile(mixed, 0.95)).toBeCloseTo(500 + 500 * 0.5, 5);
  });

  it("adds hourly rows bucket by bucket, so percentiles hold across deployments and hours", () => {
    const a = histogramOf([3, 3, 3, 3]);
    const b = histogramOf([40, 40, 40, 40]);
    const sum = addBuckets(emptyBuckets(), a);
    addBuckets(sum, b);
    expect(sum.reduce((s, n) => s + n, 0)).toBe(8);
    // Half are in (2, 5], half in (20, 50]: the median sits at the top of the fast half.
    expect(quantile(sum, 0.5)).toBeCloseTo(5, 5);
    expect(quantile(sum, 1)).toBeCloseTo(50, 5);
  });

  it("answers null without calls, and the open bucket's lower bound for the slowest", () => {
    expect(quantile(emptyBuckets(), 0.5)).toBeNull();
    expect(quantile(histogramOf([120_000]), 0.95)).toBe(60_000);
  });
});

describe("the tool figures line", () => {
  it("reads as the server page shows it", () => {
    expect(toolStatLine({ name: "echo", calls: 1234, error_rate: 0.005, p50_ms: 12, p95_ms: 40 })).toBe(
      "1,234 calls · 0.5% errors · p50 12 ms · p95 40 ms, last 24 h",
    );
    expect(toolStatLine({ name: "add", calls: 1, error_rate: 0, p50_ms: 0.5, p95_ms: 0.95 })).toBe(
      "1 call · 0% errors · p50 0.5 ms · p95 1 ms, last 24 h",
    );
  });

  it("says nothing for a tool without calls", () => {
    expect(toolStatLine(undefined)).toBeNull();
    expect(toolStatLine({ name: "x", calls: 0, error_rate: 0, p50_ms: null, p95_ms: null })).toBeNull();
  });
});
