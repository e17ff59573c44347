import { afterEach, describe, expect, it, vi } from "vitest";
import { ttlCache } from "./ttl-cache.js";
import { Verified } from "./verified.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("the gateway's short memory", () => {
  it("holds at most `max` entries however many a client makes up: the least recently used go first", () => {
    const c = ttlCache<string>(100, 10_000);
    c.set("kept", "v");
    for (let i = 0; i < 1000; i++) {
      c.set(`made-up-${i}`, "x");
      c.get("kept"); // in use all along
    }
    expect(c.size).toBe(100);
    expect(c.get("kept")).toBe("v");
    expect(c.get("made-up-0")).toBeUndefined();
    expect(c.get("made-up-999")).toBe("x");
  });

  it("forgets an entry once it is ttlMs old, on the wall clock, with no timer of its own", () => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
    const c = ttlCache<string>(10, 5000);
    c.set("k", "v");
    vi.setSystemTime(1_004_999);
    expect(c.get("k")).toBe("v");
    vi.setSystemTime(1_005_000);
    expect(c.get("k")).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a verified credential is asked again after any revocation, and a refused one is never remembered", async () => {
    const revocations = { generation: 1 };
    const v = new Verified<string>(revocations, 10_000, 10);
    let asked = 0;
    const verify = async () => (asked++, "owner");
    expect(await v.get("h", verify)).toBe("owner");
    expect(await v.get("h", verify)).toBe("owner");
    expect(asked).toBe(1);
    revocations.generation++;
    expect(await v.get("h", verify)).toBe("owner");
    expect(asked).toBe(2);
    let refusals = 0;
    const refuse = async () => (refusals++, undefined);
    for (let i = 0; i < 3; i++) expect(await v.get("bad", refuse)).toBeUndefined();
    expect(refusals).toBe(3);
  });
});
