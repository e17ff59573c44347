import { describe, expect, it } from "vitest";
import { normalDomain } from "./domains.js";

describe("normalDomain", () => {
  it("keeps a hostname of two labels or more, lower case, without its trailing dot", () => {
    expect(normalDomain(" MCP.Example.COM. ")).toBe("mcp.example.com");
    expect(normalDomain("a-b.c1.example")).toBe("a-b.c1.example");
    expect(normalDomain("xn--bcher-kva.example")).toBe("xn--bcher-kva.example");
  });

  it("refuses what is not a hostname a certificate could name", () => {
    for (const bad of [
      "localhost",
      "127.0.0.1",
      "example.123",
      "-a.example.com",
      "a-.example.com",
      "a..example.com",
      "a_b.example.com",
      "*.example.com",
      "a b.example.com",
      "bücher.example",
      "example.com/path",
      "example.com:443",
      `${"a".repeat(64)}.example.com`,
      `${"a.".repeat(127)}com`,
    ])
      expect(normalDomain(bad), bad).toBeNull();
  });
});
