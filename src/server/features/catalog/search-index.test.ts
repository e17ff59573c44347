import { describe, expect, it } from "vitest";
import { compareText, slotsInOrder } from "./search-columns.js";
import { SearchIndex, type IndexRow } from "./search-index.js";

// Rows as loadIndexRows gives them: lexemes as PostgreSQL's 'simple' parser made them (strong: those
// of the name, id and tags). gitlab mentions 'code' only in its description.
const rows: IndexRow[] = [
  {
    id: "github",
    category: "Development Tools",
    type: "Official",
    tags: ["git", "code"],
    works: true,
    lexemes: ["github", "repos", "code"],
    strong: ["github", "code"],
    users: 50,
    name: "github",
    text: "github github git code",
    created: 2000,
  },
  {
    id: "gitlab",
    category: "Development Tools",
    type: "Community",
    tags: ["git"],
    works: false,
    lexemes: ["gitlab", "repos", "code"],
    strong: ["gitlab"],
    users: 40,
    name: "gitlab",
    text: "gitlab gitlab git",
    created: 5000,
  },
  {
    id: "postgres",
    category: "Data & Storage",
    type: "Reference",
    tags: ["sql"],
    works: false,
    lexemes: ["postgres", "sql", "database"],
    strong: ["postgres", "sql"],
    users: 30,
    name: "postgres",
    text: "postgres postgres sql",
    created: 4000,
  },
  {
    id: "sqlite",
    category: "Data & Storage",
    type: "Community",
    tags: ["sql", "code"],
    works: false,
    lexemes: ["sqlite", "sql", "database", "code"],
    strong: ["sqlite", "sql", "code"],
    users: 20,
    name: "sqlite",
    text: "sqlite sqlite sql code",
    created: 3000,
  },
  {
    id: "figma",
    category: "Featured",
    type: "Community",
    tags: ["design"],
    works: false,
    lexemes: ["figma", "design"],
    strong: ["figma", "design"],
    users: 10,
    name: "figma",
    text: "figma figma design",
    created: 1000,
  },
];
// Given out of order: the index orders by the columns, not by the array.
const index = new SearchIndex([...rows].reverse());
const ids = (m: ArrayLike<number> | { ordinals: Int32Array }) => index.idsOf("ordinals" in m ? m.ordinals : m);
const none = new Map<string, string[]>();

describe("SearchIndex.match (what search_doc @@ to_tsquery finds)", () => {
  it("takes every word as a prefix and needs all words, in popular order", () => {
    expect(ids(index.match(["git"], none, {}))).toEqual(["github", "gitlab"]);
    expect(ids(index.match(["postgre"], none, {}))).toEqual(["postgres"]);
    expect(ids(index.match(["sql", "data"], none, {}))).toEqual(["postgres", "sqlite"]);
    expect(ids(index.match(["sql", "figma"], none, {}))).toEqual([]);
    expect(ids(index.match(["zzz"], none, {}))).toEqual([]);
  });

  it("adds close spellings as exact lexemes, not prefixes", () => {
    expect(ids(index.match(["githb"], new Map([["githb", ["github"]]]), {}))).toEqual(["github"]);
    // 'git' as an alternative is not a prefix: it finds no 'github'.
    expect(ids(index.match(["gxt"], new Map([["gxt", ["git"]]]), {}))).toEqual([]);
    // An entry matching both the word and its alternative counts once.
    expect(ids(index.match(["repos", "gitl"], new Map([["gitl", ["gitlab"]]]), {}))).toEqual(["gitlab"]);
  });

  it("filters by category and type, and knows no entry of an unknown one", () => {
    expect(ids(index.match(["sql"], none, { category: "Data & Storage", type: "Community" }))).toEqual(["sqlite"]);
    expect(ids(index.match(["git"], none, { type: "Official" }))).toEqual(["github"]);
    expect(ids(index.match(["git"], none, { category: "Communication" }))).toEqual([]);
  });

  it("keeps only entries whose platform check worked with 'works'", () => {
    expect(ids(index.match(["git"], none, { works: true }))).toEqual(["github"]);
    expect(ids(index.match(["sql"], none, { works: true }))).toEqual([]);
  });

  it("sorts matches A-Z and newest first", () => {
    const all = index.match(["s", "d"], none, {});
    expect(ids(all)).toEqual(["postgres", "sqlite"]);
    const both = index.match(["g"], none, {}).ordinals;
    expect(ids(index.sortBy(both, "name"))).toEqual(["github", "gitlab"]);
    expect(ids(index.sortBy(both, "newest"))).toEqual(["gitlab", "github"]);
  });
});

describe("SearchIndex.relevance and popular (the orders of a text search)", () => {
  it("ranks a word found in the name, id or tags above one found only in the description, then by popularity", () => {
    const m = index.match(["code"], none, {});
    expect(ids(m)).toEqual(["github", "gitlab", "sqlite"]);
    expect(ids(index.relevance(m, ["code"], "code", 300))).toEqual(["github", "sqlite", "gitlab"]);
  });

  it("ranks only the most used matches (the window)", () => {
    const m = index.match(["code"], none, {});
    expect(ids(index.relevance(m, ["code"], "code", 2))).toEqual(["github", "gitlab"]);
  });

  it("puts an entry named exactly as asked first", () => {
    const m = index.match(["sql"], none, {});
    expect(ids(index.relevance(m, ["sql"], "sql", 300))).toEqual(["postgres", "sqlite"]);
    const named = index.match(["sqlite"], none, {});
    expect(ids(index.relevance(named, ["sqlite"], "sqlite", 300))).toEqual(["sqlite"]);
    const both = index.match(["s"], none, {});
    expect(ids(index.relevance(both, ["s"], "sqlite", 300))[0]).toBe("sqlite");
  });

  it("orders by the popularity a cursor's listing began with, where counts moved since", () => {
    const m = index.match(["code"], none, {});
    const asOf = new Map([["sqlite", 45]]);
    expect(ids(index.popular(m.ordinals, asOf))).toEqual(["github", "sqlite", "gitlab"]);
    expect(ids(index.popular(m.ordinals, new Map()))).toEqual(["github", "gitlab", "sqlite"]);
    // Same text score (both strong): the as-of popularity breaks the tie.
    expect(ids(index.relevance(index.match(["sql"], none, {}), ["sql"], "sql", 300, new Map([["sqlite", 99]])))).toEqual([
      "sqlite",
      "postgres",
    ]);
  });
});

describe("SearchIndex.closeSpellings", () => {
  it("corrects words of three letters or more from the vocabulary, closest first", () => {
    expect(index.closeSpellings(["githb"]).get("githb")?.[0]).toBe("github");
    expect(index.closeSpellings(["postgers"]).get("postgers")).toEqual(["postgres"]);
    expect(index.closeSpellings(["zzqxvv", "gi"]).size).toBe(0);
    // The word itself is never its own correction.
    expect(index.closeSpellings(["github"]).get("github") ?? []).not.toContain("github");
  });
});

describe("SearchIndex.related", () => {
  it("gives same category with a shared tag, then same category, then a shared tag, never the entry itself", () => {
    expect(index.related("github", "Development Tools", ["git", "code"], 6)).toEqual(["gitlab", "sqlite"]);
    expect(index.related("postgres", "Data & Storage", ["sql"], 6)).toEqual(["sqlite"]);
    expect(index.related("sqlite", "Data & Storage", ["code"], 6)).toEqual(["postgres", "github"]);
    expect(index.related("figma", "Featured", ["design"], 6)).toEqual([]);
  });

  it("stops at the limit, in related order within a step", () => {
    expect(index.related("x", "Data & Storage", ["git"], 3)).toEqual(["postgres", "sqlite", "github"]);
    expect(index.related("x", "Data & Storage", ["git"], 1)).toEqual(["postgres"]);
  });

  it("finds an entry's own category and tags by its id, and knows no entry it does not hold", () => {
    expect(index.relatedOf("github", 6)).toEqual(index.related("github", "Development Tools", ["git", "code"], 6));
    expect(index.relatedOf("sqlite", 6)).toEqual(["postgres", "github"]);
    expect(index.relatedOf("pending-or-unknown", 6)).toBeUndefined();
  });
});

describe("SearchIndex.withChanges (a refresh: the base's lists and the changed entries')", () => {
  const row = (id: string, users: number, created: number, extra: Partial<IndexRow> = {}): IndexRow => ({
    id,
    category: "Development Tools",
    type: "Community",
    tags: ["git"],
    works: false,
    lexemes: [id, "repos"],
    strong: [id],
    users,
    name: id,
    text: `${id} ${id} git`,
    created,
    ...extra,
  });
  const changed = index.withChanges(
    new Map<string, IndexRow | null>([
      // gitlab renamed and now the most used; figma unlisted; gitea new.
      ["gitlab", row("gitlab", 60, 5000, { name: "a gitlab", lexemes: ["gitlab", "repos", "code"] })],
      ["figma", null],
      ["gitea", row("gitea", 45, 6000)],
    ]),
  );
  const found = (words: string[], i = changed) => i.idsOf(i.match(words, none, {}).ordinals);

  it("places changed and new entries in every order, and forgets their old places", () => {
    expect(changed.size).toBe(5);
    expect(found(["git"])).toEqual(["gitlab", "github", "gitea"]);
    const git = changed.match(["git"], none, {}).ordinals;
    expect(changed.idsOf(changed.sortBy(git, "name"))).toEqual(["gitlab", "gitea", "github"]);
    expect(changed.idsOf(changed.sortBy(git, "newest"))).toEqual(["gitea", "gitlab", "github"]);
    expect(changed.related("x", "Development Tools", [], 5)).toEqual(["gitlab", "github", "gitea"]);
  });

  it("finds no entry that is gone, nor one by words it no longer has", () => {
    expect(found(["figma"])).toEqual([]);
    expect(found(["design"])).toEqual([]);
    expect(changed.relatedOf("figma", 5)).toBeUndefined();
    // The base still has 'figma' in its vocabulary: no correction points at it.
    expect(changed.closeSpellings(["figna"]).get("figna") ?? []).not.toContain("figma");
    expect(index.closeSpellings(["figna"]).get("figna")).toContain("figma");
    expect(changed.closeSpellings(["gitee"]).get("gitee")).toContain("gitea");
  });

  it("leaves the index it came from as it was, and applies later changes over earlier ones", () => {
    expect(ids(index.match(["git"], none, {}))).toEqual(["github", "gitlab"]);
    const again = changed.withChanges(new Map([["gitea", null]]));
    expect(found(["git"], again)).toEqual(["gitlab", "github"]);
    expect(again.changes.size).toBe(3);
  });
});

describe('compareText (PostgreSQL\'s "C" collation: code point order)', () => {
  it("orders by code point, astral characters after the rest of the BMP", () => {
    const words = ["\u{1F9AB}", "\uFFFD", "b", "B", "a", "ab", "é"];
    expect([...words].sort(compareText)).toEqual(["B", "a", "ab", "b", "é", "\uFFFD", "\u{1F9AB}"]);
    expect(compareText("same", "same")).toBe(0);
  });
});

describe("slotsInOrder (matches in an order: a sort for few, one pass over the order for many)", () => {
  // 40 slots; the order is slot 39 first, then 38, ... (place p holds slot 39 - p).
  const order = Int32Array.from({ length: 40 }, (_, p) => 39 - p);
  const rank = Int32Array.from({ length: 40 }, (_, s) => 39 - s);
  it("orders a few slots by their places", () => {
    expect([...slotsInOrder([3, 17], order, rank, 40)]).toEqual([17, 3]);
  });
  it("orders many slots by reading the order once", () => {
    const many = Array.from({ length: 30 }, (_, s) => s);
    expect([...slotsInOrder(many, order, rank, 40)]).toEqual([...many].reverse());
  });
});
