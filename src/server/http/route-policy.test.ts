import { describe, expect, it } from "vitest";
import { ROUTE_POLICY } from "./route-policy.js";

// What the audit log keeps of a request's body: names, never the secrets people type.
describe("the audit details of a route", () => {
  const secret = "sk-live-this-must-never-be-stored";
  const detailOf = (key: string, body: Record<string, unknown>) => JSON.stringify(ROUTE_POLICY[key]!.detail!(body));

  it("keeps a deployment's key names, not their values", () => {
    const d = detailOf("POST /deploy/{id}", { env: { API_KEY: secret, REGION: "eu" } });
    expect(d).toContain("API_KEY");
    expect(d).not.toContain(secret);
    expect(detailOf("PUT /deployments/{id}/env", { env: { API_KEY: secret } })).not.toContain(secret);
  });

  it("keeps a connection's header names and its origin, not header values or what its URL carries", () => {
    const d = detailOf("POST /connections", {
      name: "crm",
      url: `https://user:${secret}@crm.example.com/mcp?token=${secret}`,
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(JSON.parse(d)).toEqual({ name: "crm", url: "https://crm.example.com", headers: ["Authorization"] });
    expect(detailOf("PUT /connections/{id}", { headers: { "X-Api-Key": secret } })).not.toContain(secret);
  });

  it("keeps an API key's name and no field it was not told to", () => {
    expect(JSON.parse(detailOf("POST /auth/apikeys", { name: "ci", scopes: ["deploy"], apiKey: secret }))).toEqual({ name: "ci" });
  });
});
