import { describe, expect, it } from "vitest";
import { timeAgo } from "./dates";

describe("timeAgo", () => {
  const now = Date.parse("2026-11-27T12:00:00Z");
  const ago = (s: number) => timeAgo(new Date(now - s * 1000).toISOString(), now);
  it("says how long ago, coarsely, and a date past a year", () => {
    expect(ago(20)).toBe("just now");
    expect(ago(5 * 60)).toBe("5 minutes ago");
    expect(ago(3 * 3600 + 59)).toBe("3 hours ago");
    expect(ago(86_400 + 5)).toBe("yesterday");
    expect(ago(20 * 86_400)).toBe("2 weeks ago");
    expect(ago(400 * 86_400)).toBe("Oct 23, 2025");
    // A clock a little behind the database's never says "in 2 seconds".
    expect(ago(-2)).toBe("just now");
  });
});
