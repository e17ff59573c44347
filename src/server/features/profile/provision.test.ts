import { describe, expect, it } from "vitest";
import { isValidUsername, usernameBase } from "./provision.js";

describe("username from e-mail", () => {
  it.each([
    ["ada@example.com", "ada"],
    ["Grace.Hopper@navy.mil", "grace.hopper"],
    ["x+tag@y.z", "xtag"],
    ["a@b.c", "auser"],
    ["__@b.c", "user"],
  ])("%s -> %s", (email, expected) => {
    const u = usernameBase(email);
    expect(u).toBe(expected);
    expect(isValidUsername(u)).toBe(true);
  });
});
