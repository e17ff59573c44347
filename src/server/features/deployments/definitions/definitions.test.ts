import { describe, expect, it } from "vitest";
import { showInvisible, storableText } from "~/shared/definitions.js";
import { canonical, definitionOf, DefinitionReview } from "./definitions.js";

// What a definition is: the same item in any key order is the same definition; _meta is no part
// of it; anything that could not be stored or read is no definition (and so withheld once pinned).

describe("definitions", () => {
  it("are canonical JSON: key order does not matter, every other difference does", () => {
    const a = { name: "echo", inputSchema: { type: "object", properties: { m: { type: "string" } } }, description: "Echoes" };
    const b = { description: "Echoes", inputSchema: { properties: { m: { type: "string" } }, type: "object" }, name: "echo" };
    expect(canonical(a)).toBe(canonical(b));
    expect(definitionOf(a)!.hash).toBe(definitionOf(b)!.hash);
    expect(definitionOf({ ...a, annotations: { destructiveHint: true } })!.hash).not.toBe(definitionOf(a)!.hash);
    expect(definitionOf({ ...a, description: "Echoes " })!.hash).not.toBe(definitionOf(a)!.hash);
    expect(definitionOf({ ...a, _meta: { build: 1 } })).toEqual(definitionOf(a));
  });

  it("need a storable name", () => {
    for (const bad of [
      null,
      "echo",
      [],
      { description: "x" },
      { name: "" },
      { name: 7 },
      { name: "a\u0000b" },
      { name: "a\ud800" },
      { name: "x".repeat(501) },
      { name: "big", description: "x".repeat(65 * 1024) },
    ])
      expect(definitionOf(bad)).toBeUndefined();
  });

  it("before a kind is pinned everything passes; after, only approved definitions (or, in warn only, unrejected ones)", () => {
    const d = definitionOf({ name: "echo", description: "v2" })!;
    expect(DefinitionReview.NONE.exposes("tool", d)).toBe(true);
    expect(DefinitionReview.NONE.refusal("tool", "anything")).toBeUndefined();
    const pinned = DefinitionReview.of(["tool"], false, [
      { kind: "tool", name: "echo", approvedHash: "old", currentHash: d.hash, rejectedHash: null },
    ]);
    expect(pinned.exposes("tool", d)).toBe(false);
    expect(pinned.exposes("tool", undefined)).toBe(false);
    expect(pinned.refusal("tool", "echo")).toBe("withheld");
    expect(pinned.refusal("tool", "never-listed")).toBe("unknown");
    expect(pinned.exposes("prompt", definitionOf({ name: "greet" }))).toBe(true); // prompts not pinned yet
    const warn = DefinitionReview.of(["tool"], true, [
      { kind: "tool", name: "echo", approvedHash: "old", currentHash: d.hash, rejectedHash: d.hash },
    ]);
    expect(warn.exposes("tool", d)).toBe(false);
    expect(warn.refusal("tool", "echo")).toBe("withheld");
    expect(warn.refusal("tool", "never-listed")).toBeUndefined();
    // Listed once as new (never approved), then left out of a listing: still unknown, not callable.
    const dropped = DefinitionReview.of(["tool"], false, [
      { kind: "tool", name: "evil", approvedHash: null, currentHash: null, rejectedHash: null },
    ]);
    expect(dropped.refusal("tool", "evil")).toBe("unknown");
    expect(warn.exposes("tool", definitionOf({ name: "other" }))).toBe(true);
  });
});

describe("the review's diff", () => {
  it("shows characters a reader cannot see, so a poisoned description cannot look like the approved one", () => {
    const tag = String.fromCodePoint(0xe0041); // a Unicode tag 'A', invisible, read by models
    expect(showInvisible(`Echoes${tag}\u200b\u202e.`)).toBe("Echoes⟨U+E0041⟩⟨U+200B⟩⟨U+202E⟩.");
    expect(showInvisible("plain text, émojis 😀 and CJK 漢字")).toBe("plain text, émojis 😀 and CJK 漢字");
    expect(storableText("a\u0000b\ud800c")).toBe("a\uFFFDb\uFFFDc");
  });
});
