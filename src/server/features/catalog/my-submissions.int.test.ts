// My submissions: what a submitter sees of their entries, pending, approved or rejected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, signedInUser, type Client, type TestApp } from "~support/app.js";
import { MY_SUBMISSIONS_TEXT, type SubmissionLine } from "~/shared/catalog.js";
import { startSubmissionsApp, valid } from "./submissions-test-support.js";

let t: TestApp;
let user: Client & { id: string };
let admin: Client & { id: string };
beforeAll(async () => {
  ({ t, user, admin } = await startSubmissionsApp());
});
afterAll(() => t.close());

describe("My submissions", () => {
  it("a submitter sees each of their submissions as pending, approved or rejected; nobody else's", async () => {
    const sam = await signedInUser(t, "sam@example.com");
    for (const id of ["sam-one", "sam-two", "sam-three"])
      expect((await sam.post("/api/mcp-servers", { ...valid, id, name: id })).status).toBe(201);
    expect((await admin.post("/api/admin/mcp-servers/sam-two/approve")).status).toBe(200);
    expect((await admin.del("/api/admin/mcp-servers/sam-three")).status).toBe(200);
    const mine = (await (await sam.get("/api/submissions")).json()) as SubmissionLine[];
    const byId = Object.fromEntries(mine.map((l) => [l.id, l]));
    expect(Object.keys(byId).sort()).toEqual(["sam-one", "sam-three", "sam-two"]);
    expect(byId["sam-one"]).toMatchObject({ status: "pending", decided_at: null });
    expect(byId["sam-two"]).toMatchObject({ status: "approved" });
    expect(byId["sam-three"]).toMatchObject({ status: "rejected", name: "sam-three" });
    expect(byId["sam-three"]!.decided_at).not.toBeNull();
    // A rejected id is free again: submitted anew it is pending, and the old rejection stays listed.
    expect((await sam.post("/api/mcp-servers", { ...valid, id: "sam-three", name: "sam-three" })).status).toBe(201);
    const again = ((await (await sam.get("/api/submissions")).json()) as SubmissionLine[])
      .filter((l) => l.id === "sam-three")
      .map((l) => l.status)
      .sort();
    expect(again).toEqual(["pending", "rejected"]);

    // The page says the same; others see only their own; a visitor is sent to log in.
    const page = (await (await sam.get("/submissions")).text()).replace(/<!-- -->/g, "");
    expect(page).toContain(MY_SUBMISSIONS_TEXT.title);
    for (const label of Object.values(MY_SUBMISSIONS_TEXT.status)) expect(page).toContain(label);
    expect(page).toContain('href="/server/sam-two"');
    const other = (await (await user.get("/api/submissions")).json()) as SubmissionLine[];
    expect(other.some((l) => l.id.startsWith("sam-"))).toBe(false);
    expect((await client(t.app).get("/api/submissions")).status).toBe(401);
    const visitor = await client(t.app).get("/submissions");
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("location")).toBe("/login?redirect=/submissions");
    const empty = await signedInUser(t, "newbie@example.com");
    expect(await (await empty.get("/submissions")).text()).toContain(MY_SUBMISSIONS_TEXT.empty);
  });
});
