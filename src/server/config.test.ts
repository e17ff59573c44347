import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("config", () => {
  it("uses the documented defaults", () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.PUBLIC_URL).toBe("http://localhost:3000");
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.SITE_NAME).toBe("Switchboard");
    expect(c.allowedOrigins).toContain("http://127.0.0.1:3000");
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("derives the public URL from PORT and trims a trailing slash from an explicit one", () => {
    expect(loadConfig({ PORT: "4000" }).PUBLIC_URL).toBe("http://localhost:4000");
    const c = loadConfig({ PUBLIC_URL: "https://mcp.example.com/" });
    expect(c.PUBLIC_URL).toBe("https://mcp.example.com");
    expect(c.allowedOrigins).toEqual(["https://mcp.example.com"]);
  });

  it("treats blank variables as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", PUBLIC_URL: " " }).DATABASE_URL).toBeUndefined();
  });

  it("names every bad variable at once", () => {
    let err: unknown;
    try {
      loadConfig({ PORT: "abc", DATABASE_URL: "mysql://x", LOG_LEVEL: "loud" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as ConfigError).message;
    expect(msg).toContain("PORT");
    expect(msg).toContain('"abc"');
    expect(msg).toContain("DATABASE_URL");
    expect(msg).toContain("LOG_LEVEL");
  });

  it("refuses the test-only loopback setting for client metadata documents in production", () => {
    expect(loadConfig({ OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" }).OAUTH_CIMD_ALLOW_HTTP_LOOPBACK).toBe("on");
    expect(() => loadConfig({ NODE_ENV: "production", OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" })).toThrow(/OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: must be off in production/);
  });
});
