import { describe, expect, it } from "vitest";
import { SecretBox } from "./secret-box.js";

describe("SecretBox (AES-256-GCM)", () => {
  const box = new SecretBox("x".repeat(40));

  it("round-trips values and never stores them in the clear", () => {
    const sealed = box.seal({ GITHUB_TOKEN: "ghp_supersecretvalue" });
    expect(sealed).not.toContain("ghp_supersecretvalue");
    expect(sealed).not.toContain(Buffer.from("ghp_supersecretvalue").toString("base64url"));
    expect(box.open(sealed)).toEqual({ GITHUB_TOKEN: "ghp_supersecretvalue" });
  });

  it("uses a fresh IV each time", () => {
    expect(box.seal({ A: "1" })).not.toBe(box.seal({ A: "1" }));
  });

  it("refuses a tampered value and a different key", () => {
    const sealed = box.seal({ A: "secret" });
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = body[0]! ^ 1;
    expect(() => box.open([parts[0], parts[1], parts[2], body.toString("base64url")].join("."))).toThrow();
    expect(() => new SecretBox("y".repeat(40)).open(sealed)).toThrow();
  });

  it("needs a key of at least 32 characters", () => {
    expect(() => new SecretBox("short")).toThrow(/32/);
  });
});
