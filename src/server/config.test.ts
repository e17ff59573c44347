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
    expect(() => loadConfig({ NODE_ENV: "production", OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" })).toThrow(
      /OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: must be off in production/,
    );
  });
});

describe("custom domains' resolvers", () => {
  it("takes addresses with optional ports, and refuses a name at start rather than failing every Verify", () => {
    expect(loadConfig({ CUSTOM_DOMAIN_RESOLVERS: "127.0.0.1:5353, ::1,[::1]:53 ,9.9.9.9" }).CUSTOM_DOMAIN_RESOLVERS).toEqual([
      "127.0.0.1:5353",
      "::1",
      "[::1]:53",
      "9.9.9.9",
    ]);
    expect(loadConfig({}).CUSTOM_DOMAIN_RESOLVERS).toEqual([]);
    for (const bad of ["dns.example.com", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1;rm -rf /"])
      expect(() => loadConfig({ CUSTOM_DOMAIN_RESOLVERS: bad }), bad).toThrow(/CUSTOM_DOMAIN_RESOLVERS/);
  });
});

describe("several processes (ROLES, WORKERS, cluster settings)", () => {
  const cluster = { DATABASE_URL: "postgres://db/switchboard", CLUSTER_SECRET: "s".repeat(32) };

  it("runs alone by default: every role, one process outside production, the embedded database", () => {
    const c = loadConfig({});
    expect(c.ROLES).toEqual({ web: true, gateway: true, runner: true, all: true });
    expect(c.WORKERS).toBe("auto");
    expect(c.RUNNER_LEASE_MS).toBe(15_000);
    expect(c.RUNNER_PORT).toBe(3100);
    expect(c.TRUST_PROXY_HOPS).toBe(0);
  });

  it("reads a comma-separated list of roles, in any case and order", () => {
    expect(loadConfig({ ...cluster, ROLES: "Gateway, web" }).ROLES).toEqual({ web: true, gateway: true, runner: false, all: false });
    expect(loadConfig({ ...cluster, ROLES: "runner" }).ROLES).toEqual({ web: false, gateway: false, runner: true, all: false });
  });

  it("refuses an unknown role, a bad worker count and a short cluster secret, naming each", () => {
    const err = (() => {
      try {
        loadConfig({ ...cluster, ROLES: "web,scheduler", WORKERS: "0", CLUSTER_SECRET: "short" });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.problems.join("\n")).toMatch(/ROLES: .*unknown: scheduler/);
    expect(err!.problems.join("\n")).toMatch(/WORKERS: must be auto or a whole number/);
    expect(err!.problems.join("\n")).toMatch(/CLUSTER_SECRET: must be at least 32 characters/);
  });

  it("needs one shared database and the cluster secret as soon as a process has only some roles", () => {
    expect(() => loadConfig({ ROLES: "gateway" })).toThrow(
      /DATABASE_URL: must be set when ROLES is not all[\s\S]*CLUSTER_SECRET: must be set/,
    );
    expect(() => loadConfig({ ROLES: "runner", DATABASE_URL: cluster.DATABASE_URL })).toThrow(/CLUSTER_SECRET/);
    expect(loadConfig({ ...cluster, ROLES: "runner", WORKERS: "4" }).WORKERS).toBe(4);
  });

  it("refuses a lease too short to heartbeat within", () => {
    expect(() => loadConfig({ RUNNER_LEASE_MS: "500" })).toThrow(/RUNNER_LEASE_MS/);
  });
});
