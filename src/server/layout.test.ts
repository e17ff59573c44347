import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The README's folder map ("Project layout") must stay true: every folder of the server and every
// feature has its row, and every row names a folder that exists.

const root = path.resolve(import.meta.dirname, "../..");
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const layout = readme.slice(readme.indexOf("## Project layout"));
const table = layout.slice(0, layout.indexOf("\n\n", layout.indexOf("| Folder |")));
/** The first cell of each row: the folders (and files) it names in backticks. */
const named = table
  .split("\n")
  .filter((l) => l.startsWith("| `"))
  .flatMap((l) => [...l.split("|")[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
const dirs = (p: string) =>
  readdirSync(path.join(root, p), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);

describe("the README's folder map", () => {
  it("has a row for every folder under src/server and src/server/features", () => {
    const rows = new Set(named.map((n) => n.replace(/\/$/, "")));
    const missing = [
      ...dirs("src/server")
        .filter((d) => d !== "features")
        .filter((d) => !rows.has(`src/server/${d}`)),
      ...dirs("src/server/features").filter(
        (d) => !rows.has(`features/${d}`) && !named.some((n) => n.startsWith(`features/${d}/`) || n === `${d}/`),
      ),
    ];
    expect(missing).toEqual([]);
  });

  it("names only folders and files that exist", () => {
    // A bare name is the server's (main.ts, entry.ts) or a feature's (mail/, health/).
    const places = (n: string) =>
      n.startsWith("features/")
        ? [path.join("src/server", n)]
        : /^(src|tests|scripts)\b/.test(n)
          ? [n]
          : [path.join("src/server", n), path.join("src/server/features", n)];
    const absent = named.filter((n) => !/[*{]/.test(n)).filter((n) => !places(n).some((p) => existsSync(path.join(root, p))));
    expect(absent).toEqual([]);
  });
});

/** Every file of the project (not dependencies or build output), relative to the root. */
function projectFiles(dir = "."): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    if (["node_modules", ".git", "build", ".react-router", "coverage"].includes(e.name)) return [];
    const p = path.join(dir, e.name);
    return e.isDirectory() ? projectFiles(p) : [p];
  });
}

describe("comments in src", () => {
  it("cite only files that exist", () => {
    const files = projectFiles();
    const names = new Set(files.map((f) => path.basename(f)));
    const exists = (ref: string) => (ref.includes("/") ? files.some((f) => f.endsWith(ref.replace(/^(\.\.?\/)+/, ""))) : names.has(ref));
    const dangling = files
      .filter((f) => /^src\/.*\.tsx?$/.test(f))
      .flatMap((f) =>
        readFileSync(path.join(root, f), "utf8")
          .split("\n")
          .map((line, i) => ({ line: line.trim(), at: `${f}:${i + 1}` }))
          .filter(({ line }) => line.startsWith("//") || line.startsWith("*") || line.startsWith("/*"))
          .flatMap(({ line, at }) =>
            [...line.matchAll(/(?<![\w.@/-])[\w][\w./-]*\.(?:tsx?|mjs|cjs|md)\b/g)]
              .map((m) => m[0])
              .filter((ref) => !exists(ref))
              .map((ref) => `${at}: ${ref}`),
          ),
      );
    expect(dangling).toEqual([]);
  });
});

describe("the README and docs/", () => {
  it("name only source files that exist", () => {
    const files = projectFiles();
    const docs = files.filter((f) => f === "README.md" || /^docs\/.*\.md$/.test(f));
    const missing = docs.flatMap((d) =>
      [...readFileSync(path.join(root, d), "utf8").matchAll(/`((?:src|tests|scripts)\/[\w./-]+\.(?:tsx?|mjs|cjs))`/g)]
        .map((m) => m[1]!)
        .filter((ref) => !existsSync(path.join(root, ref)))
        .map((ref) => `${d}: ${ref}`),
    );
    expect(missing).toEqual([]);
  });
});
