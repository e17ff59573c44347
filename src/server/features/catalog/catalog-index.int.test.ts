import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { catalogIndex } from "./catalog-index.js";
import { catalogFingerprint } from "./index-repo.js";
import { insertServers } from "./repo.js";
import { searchServers } from "./search-repo.js";

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

  it("is rebuilt only when a column it reads changes: a usage count alone changes nothing", async () => {
    const pool = t.database.pool;
    const f0 = await catalogFingerprint(t.database.db);
    await pool.query("update mcp_servers set use_count = use_count + 5 where id = 'aardvark-one'");
    expect(await catalogFingerprint(t.database.db)).toBe(f0);
    await pool.query("update mcp_servers set description = 'Digs' where id = 'aardvark-one'");
    const f1 = await catalogFingerprint(t.database.db);
    expect(f1).not.toBe(f0);
    await pool.query("update mcp_servers set is_approved = false where id = 'aardvark-two'");
    expect(await catalogFingerprint(t.database.db)).not.toBe(f1);
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
