import { describe, expect, it } from "vitest";
import { closestOf, paddedWords, similarity, SpellIndex, spellable, wordTrigrams } from "./search-spell.js";

describe("trigrams as pg_trgm makes them", () => {
  it("pads a word with two blanks before and one after", () => {
    expect([...wordTrigrams("cat")].sort()).toEqual(["  c", " ca", "at ", "cat"]);
    expect(wordTrigrams("naïve").size).toBe(6);
  });

  // Each figure is what PostgreSQL 18's pg_trgm answered for similarity(a, b) on this machine.
  it.each([
    ["githb", "github", 0.44444445],
    ["wether", "weather", 0.5],
    ["postgre", "postgres", 0.7],
    ["playwrite", "playwright", 0.5],
    ["kubernetes", "kubernets", 0.61538464],
    ["naïve", "naive", 0.33333334],
  ])("similarity(%s, %s) is pg_trgm's %f", (a, b, pg) => {
    expect(similarity(a, b)).toBeCloseTo(pg, 6);
  });

  it("pads each word of a text so no trigram spans two words", () => {
    expect(paddedWords("Git-Hub  tools")).toBe("  git   hub   tools ");
    expect(paddedWords("Git-Hub  tools").includes("thu")).toBe(false);
  });
});

describe("SpellIndex", () => {
  const spell = new SpellIndex(["github", "gitlab", "weather", "whether", "web3", "go", "postgres", "postgresql"]);
  const close = (w: string) => closestOf(w, [spell], () => true);

  it("keeps only plain words of 3 to 40 letters", () => {
    expect(spellable("web3")).toBe(false);
    expect(spellable("go")).toBe(false);
    expect(spellable("a".repeat(41))).toBe(false);
    expect(spellable("weather")).toBe(true);
  });

  // Each answer is PostgreSQL's: select word from unnest(<the vocabulary>) word where word % w and
  // word <> w order by word <-> w, word limit 3.
  it("gives up to three words at least 0.3 similar, closest first, never the word itself", () => {
    expect(close("githb")).toEqual(["github", "gitlab"]);
    expect(close("wether")).toEqual(["weather", "whether"]);
    expect(close("postgre")).toEqual(["postgres", "postgresql"]);
    expect(close("github")).toEqual([]);
    expect(close("zzqxvv")).toEqual([]);
    expect(close("web")).toEqual([]);
  });

  it("merges several vocabularies closest first, each word once, leaving out words no entry holds", () => {
    // similarity to 'githb': github 0.44 (in both), githubs 0.4, gthb 0.375, gitlab 0.3.
    const recent = new SpellIndex(["gthb", "github", "githubs"]);
    expect(closestOf("githb", [spell, recent], () => true)).toEqual(["github", "githubs", "gthb"]);
    expect(closestOf("githb", [spell, recent], (w) => w !== "github")).toEqual(["githubs", "gthb", "gitlab"]);
  });
});
