import { describe, expect, it } from "vitest";
import { appendCapped, batcher, type Schedule } from "./batch";

/** A scheduler the test runs by hand: `tick()` is the next animation frame. */
function manual() {
  let pending: (() => void) | null = null;
  let scheduled = 0;
  const schedule: Schedule = (fn) => {
    scheduled++;
    pending = fn;
    return () => {
      pending = null;
    };
  };
  const tick = () => {
    const fn = pending;
    pending = null;
    fn?.();
  };
  return { schedule, tick, scheduled: () => scheduled };
}

describe("notifications batched per frame", () => {
  it("hands a flood over once per frame, keeping only the latest entries", () => {
    const m = manual();
    const flushes: number[][] = [];
    const b = batcher<number>((items) => flushes.push(items), 200, m.schedule);
    for (let i = 0; i < 10_000; i++) b.push(i);
    expect(flushes).toEqual([]);
    expect(m.scheduled()).toBe(1);
    m.tick();
    expect(flushes).toHaveLength(1);
    expect(flushes[0]).toHaveLength(200);
    expect(flushes[0]![0]).toBe(9800);
    expect(flushes[0]!.at(-1)).toBe(9999);
    // The next notification waits for the next frame.
    b.push(10_000);
    expect(flushes).toHaveLength(1);
    m.tick();
    expect(flushes[1]).toEqual([10_000]);
  });

  it("keeps only the last progress report, and clearing drops what waits", () => {
    const m = manual();
    const flushes: string[][] = [];
    const b = batcher<string>((items) => flushes.push(items), 1, m.schedule);
    b.push("1 of 3");
    b.push("2 of 3");
    m.tick();
    expect(flushes).toEqual([["2 of 3"]]);
    b.push("3 of 3");
    b.clear();
    m.tick();
    expect(flushes).toEqual([["2 of 3"]]);
  });

  it("appends to a capped list", () => {
    expect(appendCapped([1, 2, 3], [4, 5], 4)).toEqual([2, 3, 4, 5]);
    expect(appendCapped([1], [2], 4)).toEqual([1, 2]);
    expect(appendCapped([1, 2], [3, 4, 5, 6, 7], 4)).toEqual([4, 5, 6, 7]);
  });
});
