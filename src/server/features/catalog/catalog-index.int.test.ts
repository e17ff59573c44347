import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { invalidateCatalog } from "./cache.js";
import { INDEX_TIMING, catalogIndex } from "./catalog-index.js";
import { loadIndexChanges, loadIndexRows } from "./index-repo.js";
import { insertServers } from "./repo.js";
import { searchServers } from "./search-repo.js";
import { SearchIndex } from "./search-index.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const entry = (id: string, name: string, description: string) => ({
  id,
  name,
  description,
  category: "Featured",
  type: "Community",
  source: "imported",
  tags: ["probe"],
  isApproved: true,
});
const search = async (q: string) => (await searchServers(t.database.db, { q, limit: 24, offset: 0 })).rows.map((r) => r.id);

describe("the in-process search index", () => {
  it("answers a search right after a write through this process, without waiting for anything else", async () => {
    await insertServers(t.database.db, [entry("aardvark-one", "Aardvark One", "Burrows")]);
    expect(await search("aardv")).toEqual(["aardvark-one"]);
    const before = await catalogIndex(t.database.db);
    await insertServers(t.database.db, [entry("aardvark-two", "Aardvark Two", "Burrows deeper")]);
    expect(await search("aardv")).toEqual(expect.arrayContaining(["aardvark-one", "aardvark-two"]));
    expect(await catalogIndex(t.database.db)).not.toBe(before);
  });

  it("reads only the entries changed since its snapshot: a usage count alone is no change", async () => {
    const pool = t.database.pool;
    const { snapshot: s0 } = await loadIndexRows(t.database.db);
    await pool.query("update mcp_servers set use_count = use_count + 5 where id = 'aardvark-one'");
    const c1 = await loadIndexChanges(t.database.db, s0);
    expect([...c1.rows.keys()]).toEqual([]);
    await pool.query("update mcp_servers set description = 'Digs tunnels' where id = 'aardvark-one'");
    const c2 = await loadIndexChanges(t.database.db, c1.snapshot);
    expect([...c2.rows.keys()]).toEqual(["aardvark-one"]);
    expect(c2.rows.get("aardvark-one")?.lexemes).toContain("tunnels");
    await pool.query("update mcp_servers set is_approved = false where id = 'aardvark-two'");
    const c3 = await loadIndexChanges(t.database.db, c2.snapshot);
    expect([...c3.rows]).toEqual([["aardvark-two", null]]);
    expect(c3.approved).toBe(c2.approved - 1);
  });

  it("misses no write whose transaction began before a refresh and committed after it", async () => {
    const late = await t.database.pool.connect();
    try {
      await late.query("begin");
      await late.query("update mcp_servers set description = 'Slowpoke edit' where id = 'aardvark-one'");
      // A refresh while that transaction is open sees nothing of it, and the write's time is already past.
      const { snapshot } = await loadIndexChanges(t.database.db, (await loadIndexRows(t.database.db)).snapshot);
      await late.query("commit");
      expect((await loadIndexChanges(t.database.db, snapshot)).rows.get("aardvark-one")?.lexemes).toContain("slowpoke");
    } finally {
      late.release();
    }
  });

  it("a refreshed index answers as a full load would: matches, every order, related servers", async () => {
    const pool = t.database.pool;
    await insertServers(t.database.db, [
      entry("zebra-one", "Zebra One", "Stripes and burrows"),
      entry("mole-one", "Mole One", "Burrows under lawns"),
      entry("mole-two", "Mole Two", "Burrows under roads"),
    ]);
    const { rows, snapshot } = await loadIndexRows(t.database.db);
    const before = new SearchIndex(rows);
    // A rename (A-Z moves), popularity (popular moves), a new entry, one unlisted, one listed again.
    await pool.query("update mcp_servers set name = 'Aaa Mole', recent_users = 9 where id = 'mole-two'");
    await pool.query("update mcp_servers set recent_users = 4 where id = 'zebra-one'");
    await insertServers(t.database.db, [entry("badger-one", "Badger One", "Burrows and setts")]);
    await pool.query("update mcp_servers set is_approved = false where id = 'mole-one'");
    await pool.query("update mcp_servers set is_approved = true where id = 'aardvark-two'");
    const changes = await loadIndexChanges(t.database.db, snapshot);
    const refreshed = before.withChanges(changes.rows);
    const full = new SearchIndex((await loadIndexRows(t.database.db)).rows);
    expect(refreshed.size).toBe(full.size);
    expect(refreshed.size).toBe(changes.approved);
    for (const words of [["burrows"], ["mole"], ["aa"], ["burrow", "under"], ["odd"]]) {
      const [a, b] = [refreshed, full].map((index) => {
        const m = index.match(words, new Map(), {});
        return {
          popular: index.idsOf(m.ordinals),
          name: index.idsOf(index.sortBy(m.ordinals, "name")),
          newest: index.idsOf(index.sortBy(m.ordinals, "newest")),
          relevance: index.idsOf(index.relevance(m, words, words.join(" "), 300)),
        };
      });
      expect(a, words.join(" ")).toEqual(b);
    }
    expect(refreshed.idsOf(refreshed.match(["burrows"], new Map(), {}).ordinals)).toEqual(
      expect.arrayContaining(["mole-two", "badger-one", "aardvark-two"]),
    );
    expect(refreshed.idsOf(refreshed.match(["mole"], new Map(), {}).ordinals)).toEqual(["mole-two"]);
    expect(refreshed.relatedOf("zebra-one", 10)).toEqual(full.relatedOf("zebra-one", 10));
    expect(refreshed.relatedOf("mole-one", 10)).toBeUndefined();
    expect(refreshed.closeSpellings(["badgr"])).toEqual(full.closeSpellings(["badgr"]));
  });

  it("never lets a pending submission into search through a refresh; only its approval does", async () => {
    await catalogIndex(t.database.db);
    await insertServers(t.database.db, [{ ...entry("sneaky-pending", "Sneakypending Tool", "Not reviewed yet"), isApproved: false }]);
    expect(await search("sneakypending")).toEqual([]);
    expect((await catalogIndex(t.database.db)).relatedOf("sneaky-pending", 5)).toBeUndefined();
    // An edit to it while pending stays out too; the approval brings it in.
    await t.database.pool.query("update mcp_servers set description = 'Still pending' where id = 'sneaky-pending'");
    await invalidateCatalog(t.database.db);
    expect(await search("sneakypending")).toEqual([]);
    await t.database.pool.query("update mcp_servers set is_approved = true where id = 'sneaky-pending'");
    await invalidateCatalog(t.database.db);
    expect(await search("sneakypending")).toEqual(["sneaky-pending"]);
  });

  it("drops an entry deleted outright, which leaves no changed row behind", async () => {
    expect(await search("badger")).toEqual(["badger-one"]);
    await t.database.pool.query("delete from mcp_servers where id = 'badger-one'");
    // Told as any write is (here directly: no bus in this test).
    await invalidateCatalog(t.database.db);
    expect(await search("badger")).toEqual([]);
  });

  it("reads a write that skipped the change-marking trigger at its periodic full load", async () => {
    await insertServers(t.database.db, [entry("numbat-one", "Numbat One", "Eats termites")]);
    expect(await search("numbat")).toEqual(["numbat-one"]);
    // A restore with triggers off: the row changes, its change mark does not.
    const c = await t.database.pool.connect();
    try {
      await c.query("set session_replication_role = replica");
      await c.query("update mcp_servers set name = 'Wombat One' where id = 'numbat-one'");
    } finally {
      await c.query("reset session_replication_role");
      c.release();
    }
    await invalidateCatalog(t.database.db);
    expect(await search("wombat")).toEqual([]);
    const timing = { ...INDEX_TIMING };
    Object.assign(INDEX_TIMING, { checkEveryMs: 0, fullEveryMs: 0 });
    try {
      await catalogIndex(t.database.db);
      const until = Date.now() + 20_000;
      while (!(await search("wombat")).length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    } finally {
      Object.assign(INDEX_TIMING, timing);
    }
    const found = await searchServers(t.database.db, { q: "wombat", limit: 24, offset: 0 });
    expect(found.rows.map((r) => [r.id, r.name])).toEqual([["numbat-one", "Wombat One"]]);
  });

  it("loads itself again in the background once many entries changed, answering from the refreshed index meanwhile", async () => {
    await catalogIndex(t.database.db);
    const many = Array.from({ length: 2_100 }, (_, i) => entry(`herd-${i}`, `Herd ${i}`, "Grazes in a herd"));
    await insertServers(t.database.db, many);
    // Right after the write: a refresh with 2,100 changed entries, already complete.
    expect((await searchServers(t.database.db, { q: "grazes", limit: 24, offset: 0 })).total).toBe(1_000);
    // Writes and searches keep coming meanwhile: each search waits for a refresh, and one of
    // them takes the full load over (it is not left waiting for a moment without a refresh).
    const until = Date.now() + 20_000;
    let i = 0;
    const busy = async (lane: number) => {
      while ((await catalogIndex(t.database.db)).changes.size >= 2_100 && Date.now() < until) {
        // Letters only, so the parser keeps it one word.
        const edit = `zq${"abcdefgh"[lane]}${(++i).toString(26).replace(/\d/g, (d) => "qrstuvwxyz"[Number(d)]!)}`;
        await t.database.pool.query(`update mcp_servers set description = $1 where id = 'herd-${lane}'`, [`Grazes, ${edit}`]);
        await invalidateCatalog(t.database.db);
        expect(await search(edit)).toEqual([`herd-${lane}`]);
      }
    };
    await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(busy));
    expect((await catalogIndex(t.database.db)).changes.size).toBeLessThan(2_100);
    expect((await searchServers(t.database.db, { q: "grazes", limit: 24, offset: 0 })).total).toBe(1_000);
    expect(await search("herd 2099")).toEqual(["herd-2099"]);
  });

  it("reads lexemes and name words whatever the text holds: control characters, quotes, markup", async () => {
    await insertServers(t.database.db, [
      entry("odd-text", 'Odd "Quoted" <b>Name</b>', "Unit\u001fseparated, tab\tand line\nbreaks, a \\ backslash, emoji 🦫 beaver"),
    ]);
    expect(await search("separated")).toEqual(["odd-text"]);
    expect(await search("beaver")).toEqual(["odd-text"]);
    expect(await search("quoted name")).toEqual(["odd-text"]);
    expect(await search("backslsh")).toEqual(["odd-text"]);
  });
});
