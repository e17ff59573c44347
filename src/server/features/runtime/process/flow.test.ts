import { describe, expect, it } from "vitest";
import { OutputBudget } from "./flow.js";

describe("OutputBudget: a token bucket of lines and bytes a second", () => {
  const limits = { stdinBytes: 0, messagesPerSecond: 100, bytesPerSecond: 10_000, floodStopMs: 3000 };
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it("lets a second's worth through at once, then says how long to wait", () => {
    const c = clock();
    const b = new OutputBudget(limits, c.now);
    expect(b.spend(100, 100)).toBe(0);
    expect(b.spend(50, 0)).toBe(500);
    c.advance(500);
    expect(b.spend(0, 0)).toBe(0);
  });

  it("counts bytes as well as lines", () => {
    const b = new OutputBudget(limits, clock().now);
    expect(b.spend(1, 30_000)).toBe(2000);
  });

  it("refills no more than a second's worth", () => {
    const c = clock();
    const b = new OutputBudget(limits, c.now);
    c.advance(60_000);
    expect(b.spend(200, 0)).toBe(1000);
  });

  it("a flood is being held back without a break for floodStopMs; a break starts the clock again", () => {
    const c = clock();
    const b = new OutputBudget(limits, c.now);
    expect(b.hold(1000)).toBe(false);
    c.advance(1000);
    expect(b.hold(1000)).toBe(false);
    c.advance(3000); // a 2 s break: the server slowed down
    expect(b.hold(1000)).toBe(false);
    c.advance(1000);
    expect(b.hold(1000)).toBe(false);
    c.advance(1000);
    expect(b.hold(1000)).toBe(false);
    c.advance(1000);
    expect(b.hold(1000)).toBe(true);
    expect(b.throttledMs).toBe(6000);
  });
});
