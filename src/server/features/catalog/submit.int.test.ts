// Submitting an entry: the API's checks and the submit page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Client, type TestApp } from "~support/app.js";
import { SUBMIT_TEXT } from "~/shared/catalog.js";
import { startSubmissionsApp, valid } from "./submissions-test-support.js";

let t: TestApp;
let user: Client & { id: string };
let admin: Client & { id: string };
beforeAll(async () => {
  ({ t, user, admin } = await startSubmissionsApp());
});
afterAll(() => t.close());

describe("POST /api/mcp-servers", () => {
  it("stores a pending entry with the id derived from the name", async () => {
    const r = await user.post("/api/mcp-servers", valid);
    expect(r.status).toBe(201);
    const body = await r.json();
    expect(body).toMatchObject({
      id: "postgresql-mcp",
      is_approved: false,
      submitted_by: user.id,
      tags: ["postgres", "sql"],
      url: null,
      useCount: 0,
    });
    expect((await t.app.request("/api/mcp-servers/postgresql-mcp")).status).toBe(404);
  });

  it("refuses a taken id with 409 and its text", async () => {
    const r = await user.post("/api/mcp-servers", valid);
    expect(r.status).toBe(409);
    expect((await r.json()).error).toBe(SUBMIT_TEXT.duplicate);
  });

  it.each([
    [{ ...valid, id: "x1", name: "" }, SUBMIT_TEXT.requiredFields],
    [{ ...valid, id: "x2", description: "  " }, SUBMIT_TEXT.requiredFields],
    [{ ...valid, id: "x3", tags: [] }, SUBMIT_TEXT.requiredFields],
    [{ ...valid, id: "x4", tags: " , " }, SUBMIT_TEXT.requiredFields],
    [{ ...valid, id: "x5", category: "Other" }, SUBMIT_TEXT.requiredFields],
    [{ ...valid, id: "Bad_ID" }, SUBMIT_TEXT.idFormat],
    [{ ...valid, id: "x6", repository_url: "javascript:alert(1)" }, SUBMIT_TEXT.urlInvalid("Repository URL")],
    [{ ...valid, id: "x7", homepage: "ftp://example.com" }, SUBMIT_TEXT.urlInvalid("Homepage URL")],
    [
      { ...valid, id: "x8", required_keys: [{ key: "K", env_var: "", description: "d" }] },
      "Environment variable names use letters, digits and underscores",
    ],
  ])("refuses %j with a clear 400", async (body, message) => {
    const r = await user.post("/api/mcp-servers", body);
    expect(r.status).toBe(400);
    expect((await r.json()).error).toBe(message);
    const count = await t.db.database.pool.query("select count(*)::int as n from mcp_servers where id like 'x%' or id = 'bad_id'");
    expect(count.rows[0].n).toBe(0);
  });

  it("requires a signed-in user", async () => {
    const r = await client(t.app).post("/api/mcp-servers", { ...valid, id: "anon" });
    expect(r.status).toBe(401);
    expect((await r.json()).error).toBe(SUBMIT_TEXT.mustLogin);
  });

  it("lists an admin's own submission at once", async () => {
    const r = await admin.post("/api/mcp-servers", { ...valid, id: "admin-pick", name: "Admin Pick" });
    expect((await r.json()).is_approved).toBe(true);
    expect((await t.app.request("/api/mcp-servers/admin-pick")).status).toBe(200);
  });
});

describe("submit page", () => {
  it("asks a signed-out visitor to log in", async () => {
    const html = await (await t.app.request("/servers/add")).text();
    expect(html).toContain(SUBMIT_TEXT.authRequired);
    expect(html).toContain(SUBMIT_TEXT.authRequiredText);
    expect(html).toMatch(/href="\/login[^"]*"[^>]*>Login</);
  });

  it("shows the form with its defaults to a signed-in user", async () => {
    const html = await (await user.get("/servers/add")).text();
    for (const s of [
      "Basic Information",
      "Classification",
      "Links",
      "Required API Keys",
      "Submit Server",
      "reviewed for quality, security and usefulness",
    ])
      expect(html).toContain(s);
    expect(html).toMatch(/<option selected="">Data &amp; Storage<\/option>|<option value="Data &amp; Storage" selected="">/);
  });
});
