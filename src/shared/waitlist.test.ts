import { describe, expect, it } from "vitest";
import { WAITLIST_TEXT, waitlistRequest } from "./waitlist.js";

describe("waitlist request schema", () => {
  it("trims the address", () => {
    expect(waitlistRequest.parse({ email: "  ada@example.com " }).email).toBe("ada@example.com");
  });
  it.each([
    [{}, WAITLIST_TEXT.required],
    [{ email: "" }, WAITLIST_TEXT.required],
    [{ email: "   " }, WAITLIST_TEXT.required],
    [{ email: "not-an-email" }, WAITLIST_TEXT.invalid],
    [{ email: 42 }, WAITLIST_TEXT.required],
    [{ email: `${"a".repeat(250)}@x.io` }, WAITLIST_TEXT.invalid],
  ])("refuses %j with a clear message", (body, message) => {
    const r = waitlistRequest.safeParse(body);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe(message);
  });
});
