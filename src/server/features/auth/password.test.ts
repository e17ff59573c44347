import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password.js";

describe("password hashing", () => {
  it("uses scrypt at OWASP strength with a random salt", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("correct horse");
  });

  it("verifies the right password and rejects a wrong one", async () => {
    const h = await hashPassword("s3cret-passphrase");
    expect(await verifyPassword({ hash: h, password: "s3cret-passphrase" })).toBe(true);
    expect(await verifyPassword({ hash: h, password: "s3cret-passphrasE" })).toBe(false);
    expect(await verifyPassword({ hash: "garbage", password: "x" })).toBe(false);
  });
});
