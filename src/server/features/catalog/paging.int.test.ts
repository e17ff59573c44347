// Paging that never skips or repeats (issue 36): every order ends with the id, so entries with the
// same name or count keep one place; and a listing paged by cursor keeps the order it began with
// while popularity moves (popularity_changes).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "~support/app.js";
import { CATALOG_TEXT } from "~/shared/catalog.js";
import { invalidateCatalog } from "./cache.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // 90 entries named alike (the imported registry has many), spread over a few counts.
  await t.db.database.db.execute(sql`
    insert into mcp_servers (id, name, description, category, type, source, tags, is_approved, recent_users, created_at)
    select 'same-' || lpad(g::text, 3, '0'), 'Same Name', 'Twin entry ' || g, 'Featured', 'Community', 'imported', array['twin'], true,
           g % 4, now() - interval '1 day'
    from generate_series(1, 90) g`);
});
afterAll(() => t.close());

type Page = { data: { id: string; useCount: number }[]; pagination: { total: number; page: number }; nextCursor: string | null };
const get = async (url: string) => {
  const r = await t.app.request(url);
  return { status: r.status, body: (await r.json()) as Page & { error?: string } };
};

/** Every page by number: what an offset-paging client sees. */
async function byPage(query: string, pageSize: number): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const { body } = await get(`/api/mcp-servers?${query}&pageSize=${pageSize}&page=${page}`);
    ids.push(...body.data.map((s) => s.id));
    if (page >= Math.ceil(body.pagination.total / pageSize)) return ids;
  }
}

/** Every page by cursor, calling `between` after each page. */
async function byCursor(query: string, pageSize: number, between: (seen: string[]) => Promise<void> = async () => {}): Promise<string[]> {
  const ids: string[] = [];
  let { body } = await get(`/api/mcp-servers?${query}&pageSize=${pageSize}`);
  for (;;) {
    ids.push(...body.data.map((s) => s.id));
    if (!body.nextCursor) return ids;
    await between(ids);
    ({ body } = await get(`/api/mcp-servers?cursor=${encodeURIComponent(body.nextCursor)}`));
  }
}

/** As the usage flush does: a new count, and every process's catalogue cache told. */
async function setUsers(id: string, n: number) {
  await t.db.database.pool.query("update mcp_servers set recent_users = $2 where id = $1", [id, n]);
  await invalidateCatalog(t.db.database.db);
}

describe("directory paging", () => {
  it.each(["", "sort=popular", "sort=name", "sort=newest", "q=twin", "q=same%20name"])(
    "by page number, each of 90 look-alike entries comes once (%s)",
    async (query) => {
      const ids = await byPage(`category=Featured&${query}`, 7);
      expect(ids.filter((id) => id.startsWith("same-")).sort()).toEqual(
        Array.from({ length: 90 }, (_, i) => `same-${String(i + 1).padStart(3, "0")}`),
      );
      expect(new Set(ids).size).toBe(ids.length);
    },
  );

  it.each(["sort=popular", "q=twin"])(
    "by cursor, the order the listing began with holds while counts change between pages (%s)",
    async (query) => {
      const before = await byCursor(`category=Featured&${query}`, 8);
      let round = 0;
      const during = await byCursor(`category=Featured&${query}`, 8, async (seen) => {
        round++;
        // One not seen yet jumps to the top, one already seen drops to the bottom, one moves both ways.
        const unseen = before.find((id) => !seen.includes(id))!;
        await setUsers(unseen, 1000 + round);
        await setUsers(seen[0]!, 0);
        await setUsers(before[before.length - 1]!, round % 2 ? 500 : 0);
      });
      expect(round).toBeGreaterThan(5);
      expect(during).toEqual(before);
      // A new listing shows the new order.
      const after = await byCursor(`category=Featured&${query}`, 8);
      expect(after).not.toEqual(before);
      expect(new Set(after).size).toBe(after.length);
      // Back to the counts the next test starts from.
      await t.db.database.pool.query("update mcp_servers set recent_users = (substr(id, 6)::int % 4) where id like 'same-%'");
      await invalidateCatalog(t.db.database.db);
    },
  );

  it.each(["sort=newest", "sort=name", "sort=popular", "q=twin"])(
    "by cursor, entries added or removed between pages shift nothing: every entry listed throughout comes once (%s)",
    async (query) => {
      const before = await byCursor(`category=Featured&${query}`, 8);
      let round = 0;
      const removed: string[] = [];
      const during = await byCursor(`category=Featured&${query}`, 8, async (seen) => {
        round++;
        // A new look-alike lands ahead of the place reached (newest, most used) or anywhere (A-Z)...
        await t.db.database.pool.query(
          `insert into mcp_servers (id, name, description, category, type, source, tags, is_approved, recent_users, created_at)
           values ($1, 'Same Name', 'Twin entry new', 'Featured', 'Community', 'imported', array['twin'], true, 900, now())`,
          [`new-${String(round).padStart(3, "0")}`],
        );
        // ...and two already seen go: the first, and the page's last (the place reached itself).
        for (const id of [seen[0]!, seen[seen.length - 1]!]) {
          await t.db.database.pool.query("update mcp_servers set is_approved = false where id = $1", [id]);
          removed.push(id);
        }
        await invalidateCatalog(t.db.database.db);
      });
      expect(round).toBeGreaterThan(5);
      expect(during.filter((id) => !id.startsWith("new-"))).toEqual(before);
      expect(new Set(during).size).toBe(during.length);
      // Back to the entries the next test starts from.
      await t.db.database.pool.query("delete from mcp_servers where id like 'new-%'");
      await t.db.database.pool.query("update mcp_servers set is_approved = true where id = any($1)", [removed]);
      await invalidateCatalog(t.db.database.db);
    },
  );

  it("by cursor, a page's last entry renamed to sort first keeps marking the place reached (sort=name)", async () => {
    const before = await byCursor("category=Featured&sort=name", 8);
    const during = await byCursor("category=Featured&sort=name", 8, async (seen) => {
      await t.db.database.pool.query("update mcp_servers set name = 'AAA renamed' where id = $1", [seen[seen.length - 1]]);
      await invalidateCatalog(t.db.database.db);
    });
    expect(during).toEqual(before);
    await t.db.database.pool.query("update mcp_servers set name = 'Same Name' where id like 'same-%'");
    await invalidateCatalog(t.db.database.db);
  });

  it("by cursor, every entry already read withdrawn meanwhile loses no page (the total shrinks under the reader)", async () => {
    const before = await byCursor("category=Featured&sort=name", 8);
    const during = await byCursor("category=Featured&sort=name", 8, async (seen) => {
      await t.db.database.pool.query("update mcp_servers set is_approved = false where id = any($1)", [seen]);
      await invalidateCatalog(t.db.database.db);
    });
    expect(during).toEqual(before);
    await t.db.database.pool.query("update mcp_servers set is_approved = true where id like 'same-%'");
    await invalidateCatalog(t.db.database.db);
  });

  it("a forged cursor naming a pending entry learns nothing of it: the page is the one a made-up id gives", async () => {
    await t.db.database.pool.query(
      `insert into mcp_servers (id, name, description, category, type, source, tags, is_approved)
       values ('hidden-pending', 'Same Name M', 'Not reviewed', 'Featured', 'Community', 'user_submitted', array['twin'], false)`,
    );
    const forge = (after: string[]) =>
      Buffer.from(JSON.stringify({ v: 1, at: Date.now(), page: 2, pageSize: 5, sort: "newest", category: "Featured", after })).toString(
        "base64url",
      );
    const pending = await get(`/api/mcp-servers?cursor=${forge(["hidden-pending"])}`);
    const madeUp = await get(`/api/mcp-servers?cursor=${forge(["no-such-entry"])}`);
    expect(pending.status).toBe(200);
    expect(pending.body.data.map((s) => s.id)).toEqual(madeUp.body.data.map((s) => s.id));
    // Nor can its place's name and count reach the database as anything but values.
    for (const afterKey of [
      { name: "'; drop table mcp_servers; --", users: 2 ** 53 - 1 },
      { name: "x".repeat(1000), users: -1 },
    ]) {
      const forged = Buffer.from(JSON.stringify({ v: 1, at: Date.now(), page: 2, pageSize: 5, after: ["same-001"], afterKey })).toString(
        "base64url",
      );
      expect([200, 400]).toContain((await get(`/api/mcp-servers?cursor=${forged}`)).status);
    }
    await t.db.database.pool.query("delete from mcp_servers where id = 'hidden-pending'");
  });

  it("refuses a cursor it did not give, or one more than an hour old, with the reason", async () => {
    const bad = await get("/api/mcp-servers?cursor=not-a-cursor");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe(CATALOG_TEXT.badCursor);
    const forged = Buffer.from(JSON.stringify({ v: 1, at: Date.now(), page: 2, pageSize: 1000 })).toString("base64url");
    expect((await get(`/api/mcp-servers?cursor=${forged}`)).body.error).toBe(CATALOG_TEXT.badCursor);
    const old = Buffer.from(JSON.stringify({ v: 1, at: Date.now() - 2 * 3_600_000, page: 2, pageSize: 10 })).toString("base64url");
    const expired = await get(`/api/mcp-servers?cursor=${old}`);
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe(CATALOG_TEXT.cursorExpired);
    // The directory page ignores one in its address rather than failing.
    expect((await t.app.request(`/?cursor=${old}`)).status).toBe(200);
  });
});
