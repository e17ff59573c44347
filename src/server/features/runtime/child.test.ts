import { describe, expect, it } from "vitest";
import { nestsDeeper } from "./child.js";

describe("nestsDeeper: how deep a server's JSON nests, before it is parsed", () => {
  it("counts objects and arrays, not brackets inside strings or escaped quotes", () => {
    expect(nestsDeeper('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestsDeeper('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestsDeeper(`{"s":"${"[".repeat(5000)}"}`, 10)).toBe(false);
    expect(nestsDeeper(`{"s":"\\"${"{".repeat(50)}"}`, 10)).toBe(false);
    expect(nestsDeeper(`{"s":"\\\\"${",[".repeat(50)}`, 10)).toBe(true);
  });

  it("stops at the limit: millions of brackets are refused in a moment", () => {
    const deep = "[".repeat(8_000_000) + "]".repeat(8_000_000);
    const started = performance.now();
    expect(nestsDeeper(deep, 2000)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
    const wide = JSON.stringify({ items: Array.from({ length: 200_000 }, (_, i) => ({ i, s: "[{" })) });
    expect(nestsDeeper(wide, 2000)).toBe(false);
  });
});
