import { describe, expect, it } from "vitest";
import { safeRedirect } from "./api.js";

describe("safeRedirect", () => {
  it.each([
    [null, "/"],
    ["subscription", "/subscription"],
    ["/servers/add", "/servers/add"],
    ["/server/abc?x=1", "/server/abc?x=1"],
    ["//evil.example", "/"],
    ["https://evil.example", "/"],
    ["/\\evil.example", "/"],
    ["javascript:alert(1)", "/"],
  ])("%s -> %s", (input, out) => expect(safeRedirect(input)).toBe(out));
});
