// One namespace for people and organisations, held by the database when two claims race
// (migration 0033): a username and an organisation's slug taken at the same moment by two
// transactions. The services' own checks (tested in orgs.int.test.ts) each see nothing yet; the
// second claim waits for the first, then is refused as a unique violation.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type TestApp } from "~support/app.js";
import { ORG_TEXT } from "~/shared/orgs.js";

let t: TestApp;
let a: pg.Client;
let b: pg.Client;

beforeAll(async () => {
  t = await createTestApp();
  a = new pg.Client({ connectionString: t.db.url });
  b = new pg.Client({ connectionString: t.db.url });
  await Promise.all([a.connect(), b.connect()]);
  // Two accounts to give profiles to.
  await a.query(
    `insert into "user" (id, name, email, email_verified) values ('race-1', 'One', 'race-1@example.com', true), ('race-2', 'Two', 'race-2@example.com', true)`,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.end(), b?.end()]);
  await t?.close();
});

const org = (c: pg.Client, id: string, slug: string) =>
  c.query(`insert into "organization" (id, name, slug) values ($1, $2, $3)`, [id, slug, slug]);
const profile = (c: pg.Client, id: string, username: string) =>
  c.query(`insert into "profiles" (id, email, username, full_name) values ($1, $2, $3, '')`, [id, `${id}@example.com`, username]);

/** Whether `p` is still waiting after a moment (blocked on the first claim's lock). */
async function waiting(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([
    p.then(
      () => false,
      () => false,
    ),
    new Promise<boolean>((r) => setTimeout(() => r(true), 300)),
  ]);
}

describe("a name claimed by a person and an organisation at once", () => {
  it("an organisation's slug first: the username waits, then is refused, in any letter case", async () => {
    await a.query("begin");
    await b.query("begin");
    await org(a, "race-org-1", "harbour");
    const second = profile(b, "race-1", "Harbour");
    const settled = second.then(
      () => null,
      (e: { code?: string }) => e.code,
    );
    expect(await waiting(second)).toBe(true);
    await a.query("commit");
    expect(await settled).toBe("23505");
    await b.query("rollback");
  });

  it("a username first: the organisation waits, then is refused", async () => {
    await a.query("begin");
    await b.query("begin");
    await profile(a, "race-2", "lighthouse");
    const second = org(b, "race-org-2", "lighthouse");
    const settled = second.then(
      () => null,
      (e: { code?: string }) => e.code,
    );
    expect(await waiting(second)).toBe(true);
    await a.query("commit");
    expect(await settled).toBe("23505");
    await b.query("rollback");
  });

  it("through the API: an organisation created while the name is being taken gets the site's sentence, not an error", async () => {
    const maker = await signedInUser(t, "maker-race@example.com");
    await a.query("begin");
    // race-2 has a profile already (the test above): the name is taken by renaming it, in the open transaction.
    await a.query(`update profiles set username = 'wharf' where id = 'race-2'`);
    const created = maker.post("/api/orgs", { name: "Wharf", slug: "wharf" });
    expect(await waiting(created)).toBe(true);
    await a.query("commit");
    const r = await created;
    expect(r.status).toBe(409);
    expect(((await r.json()) as { error: string }).error).toBe(ORG_TEXT.slugTaken);
    expect((await maker.get("/api/orgs/wharf")).status).toBe(404);
  });

  it("a first claim rolled back leaves the name to the second", async () => {
    await a.query("begin");
    await b.query("begin");
    await org(a, "race-org-3", "quay");
    const second = profile(b, "race-1", "quay");
    expect(await waiting(second)).toBe(true);
    await a.query("rollback");
    await second;
    await b.query("commit");
    const r = await a.query(`select username from profiles where id = 'race-1'`);
    expect(r.rows).toEqual([{ username: "quay" }]);
  });
});
