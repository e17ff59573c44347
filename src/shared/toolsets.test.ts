import { describe, expect, it } from "vitest";
import { defaultPrefix, PREFIX, TOOLSET_TEXT, toolsetInput } from "./toolsets.js";

describe("toolset prefixes", () => {
  it("default to a member's short name, within the rules", () => {
    expect(defaultPrefix("toolsets/alpha")).toBe("alpha");
    expect(defaultPrefix("@modelcontextprotocol/server-everything")).toBe("everything");
    expect(defaultPrefix("io.github.someone/weather-mcp-server")).toBe("weather");
    expect(defaultPrefix("mcp-server-github")).toBe("github");
    expect(defaultPrefix("123_Tools.Box")).toBe("tools-box");
    expect(defaultPrefix("___")).toBe("server");
    for (const name of ["a/b", "x".repeat(60), "Ünïcode server", "9lives"]) expect(defaultPrefix(name)).toMatch(PREFIX);
  });

  it("never hold the separator: a prefix with an underscore is refused with the reason", () => {
    const r = toolsetInput.safeParse({ name: "set", members: [{ deployment_id: crypto.randomUUID(), prefix: "a_b" }] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe(TOOLSET_TEXT.badPrefix);
  });

  it("need exactly one of deployment_id and connection_id per member, and at least one member", () => {
    const id = crypto.randomUUID();
    expect(toolsetInput.safeParse({ name: "set", members: [] }).success).toBe(false);
    expect(toolsetInput.safeParse({ name: "set", members: [{ prefix: "a" }] }).success).toBe(false);
    expect(toolsetInput.safeParse({ name: "set", members: [{ deployment_id: id, connection_id: id }] }).success).toBe(false);
    expect(toolsetInput.safeParse({ name: "set", members: [{ connection_id: id }] }).success).toBe(true);
  });
});
