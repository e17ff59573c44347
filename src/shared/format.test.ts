import { describe, expect, it } from "vitest";
import { formatBytes, formatCount, formatDuration } from "./format.js";

describe("formatting", () => {
  it("writes sizes in decimal units", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1000)).toBe("1 kB");
    expect(formatBytes(1536)).toBe("1.5 kB");
    expect(formatBytes(8 * 1024 * 1024)).toBe("8.4 MB");
    expect(formatBytes(2_500_000_000)).toBe("2,500 MB");
  });

  it("writes durations in ms up to 10 s, then in seconds", () => {
    expect(formatDuration(null)).toBe("–");
    expect(formatDuration(0.44)).toBe("0.4 ms");
    expect(formatDuration(7)).toBe("7 ms");
    expect(formatDuration(12.6)).toBe("13 ms");
    expect(formatDuration(1234)).toBe("1,234 ms");
    expect(formatDuration(12_345)).toBe("12.3 s");
    expect(formatDuration(600_000)).toBe("600 s");
  });

  it("groups thousands", () => {
    expect(formatCount(10 * 1024 * 1024)).toBe("10,485,760");
  });
});
