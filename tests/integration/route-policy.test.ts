// The one table of who may call each REST route and what it records (http/route-policy.ts), held
// against the API as it is: every route of /api/openapi.json is classified, every state-changing
// one names its audit action, and each route refuses someone without its role (signed out, a user
// who is not an admin, a user outside the organisation).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_POLICY, ROUTE_POLICY } from "~/server/http/route-policy.js";
import { client, createTestApp, signedInUser, type Client, type TestApp } from "../support/app.js";

let t: TestApp;
let paths: Record<string, Record<string, { requestBody?: { required?: boolean } }>>;
let user: Client & { id: string };
let owner: Client & { id: string };
let anon: Client;
beforeAll(async () => {
  t = await createTestApp({ ADMIN_EMAILS: "root@example.com" });
  paths = ((await (await t.app.request("/api/openapi.json")).json()) as { paths: typeof paths }).paths;
  user = await signedInUser(t, "user@example.com");
  owner = await signedInUser(t, "owner@example.com");
  expect((await owner.post("/api/orgs", { name: "Walled", slug: "walled" })).status).toBe(201);
  anon = client(t.app, new URL(t.config.PUBLIC_URL).origin);
});
afterAll(() => t.close());

const routes = () =>
  Object.entries(paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, method: m.toUpperCase(), path: p, op })),
  );

/** The route's path with each parameter filled: the organisation's slug where it names one. */
const fill = (p: string) => `/api${p.replace("{slug}", "walled").replace(/\{[^}]+\}/g, "x1")}`;

async function call(c: Client, method: string, path: string) {
  if (method === "GET") return c.get(path);
  if (method === "DELETE") return c.del(path, {});
  return method === "PUT" ? c.put(path, {}) : c.post(path, {});
}

describe("the route policy", () => {
  it("names the role of every route the API serves, and names no route it does not serve", () => {
    const served = routes().map((r) => r.key);
    expect(served.length).toBeGreaterThan(60);
    expect(
      served.filter((k) => !ROUTE_POLICY[k]),
      "routes without a role in http/route-policy.ts",
    ).toEqual([]);
    expect(
      Object.keys(ROUTE_POLICY).filter((k) => !served.includes(k)),
      "policy rows of routes that do not exist",
    ).toEqual([]);
  });

  it("gives every state-changing route an audit action", () => {
    const silent = routes().filter((r) => r.method !== "GET" && !ROUTE_POLICY[r.key]?.audit);
    expect(silent.map((r) => r.key)).toEqual([]);
  });

  it("refuses every route but the public ones to someone signed out", async () => {
    for (const r of routes()) {
      const role = ROUTE_POLICY[r.key]!.role;
      if (role === "public") continue;
      const res = await call(anon, r.method, fill(r.path));
      // A body that fails validation is refused before anything else is looked at; never an answer.
      expect([400, 401], `${r.key} signed out`).toContain(res.status);
      if (!r.op.requestBody?.required) expect(res.status, `${r.key} signed out`).toBe(401);
    }
  });

  it("refuses the admins' routes to a user, and an organisation's routes to someone outside it", async () => {
    for (const r of routes()) {
      const role = ROUTE_POLICY[r.key]!.role;
      if (role !== "admin" && !role.startsWith("org:")) continue;
      const res = await call(user, r.method, fill(r.path));
      if (role === "admin") expect([400, 403], `${r.key} as a user`).toContain(res.status);
      // Outside an organisation, it does not exist.
      else expect([400, 404], `${r.key} as an outsider`).toContain(res.status);
      if (!r.op.requestBody?.required) expect(res.status, `${r.key}`).toBe(role === "admin" ? 403 : 404);
    }
    // The owner gets through where the outsider did not.
    expect((await owner.get("/api/orgs/walled")).status).toBe(200);
  });
});

describe("the page policy", () => {
  it("names the role of every page, and each page refuses whoever lacks it", async () => {
    const { default: pages } = await import("~/web/routes.js");
    const served = ["/", ...pages.map((p) => `/${p.path ?? ""}`).filter((p) => p !== "/")];
    expect(
      served.filter((p) => !PAGE_POLICY[p]),
      "pages without a role in http/route-policy.ts",
    ).toEqual([]);
    expect(Object.keys(PAGE_POLICY).filter((p) => !served.includes(p))).toEqual([]);
    for (const [p, role] of Object.entries(PAGE_POLICY)) {
      if (role === "public") continue;
      const url = p.replace(":slug", "walled").replace(/:\w+/g, "x1");
      const signedOut = await anon.get(url);
      expect(signedOut.status, `${p} signed out`).toBeGreaterThanOrEqual(300);
      expect(signedOut.status, `${p} signed out`).toBeLessThan(400);
      expect(signedOut.headers.get("location"), `${p} signed out`).toMatch(/^\/login\?redirect=/);
      if (role === "admin") {
        // The spec sends a non-admin back to the directory.
        const r = await user.get(url);
        expect(r.status, `${p} as a user`).toBe(302);
        expect(r.headers.get("location")).toBe("/servers");
      }
      if (role.startsWith("org:")) {
        expect((await user.get(url)).status, `${p} as an outsider`).toBe(404);
        expect((await owner.get(url)).status, `${p} as its owner`).toBe(200);
      }
    }
  });
});
