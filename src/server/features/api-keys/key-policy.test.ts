import { describe, expect, it } from "vitest";
import { API_KEY_TEXT, apiKeyCreate } from "~/shared/publishers.js";
import { keyRule } from "./key-policy.js";

describe("what an API key may do (keyRule)", () => {
  it("names a scope for the routes clients and scripts need", () => {
    expect(keyRule("POST", "/api/deploy/alice/weather")).toBe("deploy");
    expect(keyRule("GET", "/api/deployments")).toBe("deploy");
    expect(keyRule("DELETE", "/api/deployments/6f1c0000-0000-4000-8000-000000000000")).toBe("deploy");
    expect(keyRule("PUT", "/api/deployments/x/tools")).toBe("deploy");
    expect(keyRule("POST", "/api/connections")).toBe("deploy");
    expect(keyRule("DELETE", "/api/connections/6f1c0000-0000-4000-8000-000000000000")).toBe("deploy");
    expect(keyRule("GET", "/api/connectionsx")).toBe("session");
    expect(keyRule("GET", "/api/servers")).toBe("servers");
    expect(keyRule("PUT", "/api/servers/alice/weather")).toBe("servers");
    expect(keyRule("POST", "/api/mcp-servers")).toBe("servers");
  });

  it("lets public reads through with any key", () => {
    for (const [m, p] of [
      ["GET", "/api/mcp-servers"],
      ["HEAD", "/api/mcp-servers/everything"],
      ["GET", "/api/servers/alice/weather/tool-stats"],
      ["GET", "/api/openapi.json"],
    ]) {
      expect(keyRule(m!, p!), `${m} ${p}`).toBe("public");
    }
  });

  it("needs a sign-in for everything else: the account, keys, billing, connected apps, admin, and routes it does not know", () => {
    for (const [m, p] of [
      ["POST", "/api/auth/apikeys"],
      ["DELETE", "/api/auth/apikeys/laptop"],
      ["GET", "/api/auth/me"],
      ["GET", "/api/auth/connected-apps"],
      ["PUT", "/api/users/u1"],
      ["DELETE", "/api/users/u1"],
      ["POST", "/api/subscriptions/checkout"],
      ["GET", "/api/subscriptions/current"],
      ["GET", "/api/admin/mcp-servers"],
      ["POST", "/api/admin/mcp-servers/x/approve"],
      ["PUT", "/api/mcp-servers/everything"],
      ["DELETE", "/api/servers-but-not-really"],
      ["GET", "/api/deployments-export"],
      ["GET", "/api/something-new"],
    ]) {
      expect(keyRule(m!, p!), `${m} ${p}`).toBe("session");
    }
  });
});

describe("apiKeyCreate", () => {
  it("defaults to the mcp scope, all deployments and no expiry", () => {
    expect(apiKeyCreate.parse({ name: " laptop " })).toEqual({ name: "laptop", scopes: ["mcp"], resources: null, expiresAt: null });
  });

  it("reads a form's single values and repeated ones alike, without duplicates", () => {
    expect(apiKeyCreate.parse({ name: "ci", scopes: "deploy", resources: "alice/one" })).toMatchObject({
      scopes: ["deploy"],
      resources: ["alice/one"],
    });
    expect(apiKeyCreate.parse({ name: "ci", scopes: ["deploy", "deploy", "mcp"], resources: [] })).toMatchObject({
      scopes: ["deploy", "mcp"],
      resources: null,
    });
  });

  it("turns 30/90 days and a date into an expiry; a past, unreadable or more than 10 years away date is refused", () => {
    const in30 = apiKeyCreate.parse({ name: "a", expiry: "30" }).expiresAt!.getTime() - Date.now();
    expect(Math.round(in30 / 86_400_000)).toBe(30);
    const nextYear = new Date().getUTCFullYear() + 1;
    expect(apiKeyCreate.parse({ name: "a", expiry: "custom", expiresAt: `${nextYear}-01-02` }).expiresAt!.toISOString()).toBe(
      `${nextYear}-01-02T23:59:59.000Z`,
    );
    expect(apiKeyCreate.parse({ name: "a", expiry: "never", expiresAt: "2999-01-02" }).expiresAt).toBeNull();
    for (const expiresAt of ["2001-01-01", "soon", undefined, "2999-01-02", "10000-01-01"]) {
      const r = apiKeyCreate.safeParse({ name: "a", expiry: "custom", expiresAt });
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.message).toBe(API_KEY_TEXT.badExpiry);
    }
  });

  it("refuses no scope and unknown scopes", () => {
    for (const scopes of [[], ["admin"], ["mcp", "billing"]]) expect(apiKeyCreate.safeParse({ name: "a", scopes }).success).toBe(false);
  });
});
