import { describe, expect, it } from "vitest";
import { bearer } from "./access.js";

describe("the credential of an Authorization header", () => {
  it("is what follows the Bearer scheme, in any case, after at least one space or tab", () => {
    expect(bearer("Bearer sb_key")).toBe("sb_key");
    expect(bearer("bearer   sb_key  ")).toBe("sb_key");
    expect(bearer("BEARER\tsb_key")).toBe("sb_key");
  });

  it("is nothing for another scheme, no separator or no credential", () => {
    for (const h of [undefined, "", "Basic c2I6a2V5", "Bearersb_key", "Bearer", "Bearer    ", "Bear sb_key", " Bearer sb_key"])
      expect(bearer(h)).toBe("");
  });
});
