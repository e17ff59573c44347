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
