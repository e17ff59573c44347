import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.js";

describe("RateLimiter", () => {
  it("allows the limit, refuses the next with a retry time, and resets after the window", () => {
    const r = new RateLimiter();
    const t = 1_000_000;
    for (let i = 0; i < 3; i++) expect(r.hit("k", 3, 60_000, t).ok).toBe(true);
    const refused = r.hit("k", 3, 60_000, t + 10_000);
    expect(refused).toEqual({ ok: false, retryAfterSec: 50 });
    expect(r.hit("other", 3, 60_000, t).ok).toBe(true);
    expect(r.hit("k", 3, 60_000, t + 60_001).ok).toBe(true);
  });
});
