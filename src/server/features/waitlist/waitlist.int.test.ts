import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postJson, createTestApp, type TestApp } from "~support/app.js";
import { WAITLIST_TEXT } from "~/shared/waitlist.js";
import { countWaitlist } from "./repo.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("POST /api/waitlist", () => {
  it("adds a new address with 201 and its message", async () => {
    const res = await postJson(t.app, "/api/waitlist", { email: "  Ada@Example.com " });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ created: true, message: WAITLIST_TEXT.success });
    const rows = await t.db.database.pool.query("select email from waitlist");
    expect(rows.rows).toEqual([{ email: "Ada@Example.com" }]);
  });

  it("answers 200 with the same message for an address already listed, in any case, without a second row", async () => {
    const res = await postJson(t.app, "/api/waitlist", { email: "ada@EXAMPLE.com" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ created: false, message: WAITLIST_TEXT.success });
    expect(await countWaitlist(t.db.database.db)).toBe(1);
  });

  it("keeps one row when the same address arrives concurrently", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => postJson(t.app, "/api/waitlist", { email: "race@example.com" })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const n = await t.db.database.pool.query("select count(*)::int as n from waitlist where lower(email) = 'race@example.com'");
    expect(n.rows[0].n).toBe(1);
  });

  it.each([
    ["a missing address", {}, WAITLIST_TEXT.required],
    ["an empty address", { email: "" }, WAITLIST_TEXT.required],
    ["a malformed address", { email: "ada-at-example" }, WAITLIST_TEXT.invalid],
    ["a non-string address", { email: ["a@b.co"] }, WAITLIST_TEXT.required],
  ])("refuses %s with 400 and an error", async (_name, body, message) => {
    const res = await postJson(t.app, "/api/waitlist", body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: message, code: "validation_failed", field: "email" });
  });

  it("refuses a body that is not JSON with 400", async () => {
    const broken = await postJson(t.app, "/api/waitlist", "{not json");
    expect(broken.status).toBe(400);
    expect((await broken.json()).error).toMatch(/JSON/);

    const form = await t.app.request("/api/waitlist", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=a%40b.co",
    });
    expect(form.status).toBe(400);
    expect(await form.json()).toMatchObject({ code: "invalid_json" });
  });

  it("refuses a cross-origin post with 403 and writes nothing", async () => {
    const before = await countWaitlist(t.db.database.db);
    const res = await postJson(t.app, "/api/waitlist", { email: "evil@example.com" }, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(await countWaitlist(t.db.database.db)).toBe(before);
  });
});
