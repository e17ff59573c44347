import { describe, expect, it } from "vitest";
import { freshNonce } from "./security-headers.js";

describe("freshNonce", () => {
  it("gives 16 random bytes each time, never the same twice, across many refills of its pool", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const n = freshNonce();
      expect(Buffer.from(n, "base64")).toHaveLength(16);
      seen.add(n);
    }
    expect(seen.size).toBe(5_000);
  });
});
