import { describe, expect, it } from "vitest";
import { formatDate } from "../../shared/format";
import { dateTime, longDate, timeAgo } from "./dates";

describe("dates", () => {
  it("writes a date one way, in English and UTC, whatever the time of day", () => {
    expect(longDate("2026-12-02T14:05:09Z")).toBe("December 2, 2026");
    // Late in the evening west of Greenwich is already the next day in UTC: the page says UTC's.
    expect(longDate("2026-12-02T23:30:00-05:00")).toBe("December 3, 2026");
    expect(formatDate(new Date("2026-01-09T00:00:00Z"))).toBe("January 9, 2026");
  });

  it("writes a date with its time to the minute, in 24 hours, saying UTC", () => {
    expect(dateTime("2026-12-02T14:05:09Z")).toBe("December 2, 2026, 14:05 UTC");
    expect(dateTime("2026-12-02T00:00:59.999Z")).toBe("December 2, 2026, 00:00 UTC");
    expect(dateTime("2026-12-02T09:03:07Z", { seconds: true })).toBe("December 2, 2026, 09:03:07 UTC");
  });

  it("says how long ago, coarsely, and the date past a year", () => {
    const now = Date.parse("2026-11-27T12:00:00Z");
    const ago = (s: number) => timeAgo(new Date(now - s * 1000).toISOString(), now);
    expect(ago(20)).toBe("just now");
    expect(ago(5 * 60)).toBe("5 minutes ago");
    expect(ago(3 * 3600 + 59)).toBe("3 hours ago");
    expect(ago(86_400 + 5)).toBe("yesterday");
    expect(ago(20 * 86_400)).toBe("2 weeks ago");
    expect(ago(400 * 86_400)).toBe("October 23, 2025");
    // A clock a little behind the database's never says "in 2 seconds".
    expect(ago(-2)).toBe("just now");
  });
});
