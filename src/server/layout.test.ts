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

// "No two features import each other" (the house rules). The graph is computed from the source:
// every non-test file under src/server/features, its relative and `~/` imports (static,
// `export ... from` and dynamic), counted by the folder each side lies in.
const featuresDir = path.join(root, "src/server/features");
const features = dirs("src/server/features");
function featureGraph(): Map<string, string[]> {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  const edges = new Map<string, string[]>();
  for (const f of walk(featuresDir).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !/test-setup/.test(f))) {
    const from = path.relative(featuresDir, f).split(path.sep)[0]!;
    for (const m of readFileSync(f, "utf8").matchAll(/(?:import|export)[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) {
      const spec = (m[1] ?? m[2])!;
      const target = spec.startsWith(".")
        ? path.resolve(path.dirname(f), spec)
        : spec.startsWith("~/")
          ? path.join(root, "src", spec.slice(2))
          : undefined;
      const rel = target && path.relative(featuresDir, target);
      if (!rel || rel.startsWith("..")) continue;
      const to = rel.split(path.sep)[0]!;
      if (to === from) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), `${path.relative(featuresDir, f)} -> ${rel}`]);
    }
  }
  return edges;
}
const graph = featureGraph();
const imports = (feature: string) =>
  new Set([...graph.keys()].filter((k) => k.startsWith(`${feature} -> `)).map((k) => k.split(" -> ")[1]!));

describe("the features' imports", () => {
  it("never go both ways between two features", () => {
    const twoWay = [...graph.keys()]
      .map((k) => k.split(" -> ") as [string, string])
      .filter(([a, b]) => a < b && graph.has(`${b} -> ${a}`))
      .map(([a, b]) => `${a} <-> ${b}`);
    // Each pair found, with the imports that make it: the one that goes against the grain is to be
    // a port the platform fills in (as deployments' DeploymentResources or catalog's ListingReview).
    const found = twoWay.map((pair) => {
      const [a, b] = pair.split(" <-> ");
      return [pair, ...graph.get(`${a} -> ${b}`)!, ...graph.get(`${b} -> ${a}`)!].join("\n  ");
    });
    expect(found).toEqual([]);
  });

  // The third column ("May import") of a feature's row names, as whole words outside parentheses,
  // exactly the features it imports: a word that is a feature's folder name ("deployments",
  // "api-keys", "auth's `Viewer`") names that feature; a parenthesis explains and names nothing.
  // A row of several features (`features/waitlist/`, `mail/`, `health/`) names what any of them
  // imports, and each feature it names is imported by one of them.
  it('are the ones the README\'s "May import" column names', () => {
    const rows = table.split("\n").filter((l) => l.startsWith("| `"));
    const wrong = rows.flatMap((row) => {
      const cells = row.split("|");
      const owners = [...cells[1]!.matchAll(/`(?:features\/)?([a-z-]+)\/`/g)].map((m) => m[1]!).filter((f) => features.includes(f));
      if (owners.length === 0) return [];
      let cell = cells[3]!;
      while (/\([^()]*\)/.test(cell)) cell = cell.replace(/\([^()]*\)/g, "");
      const named = new Set(features.filter((f) => new RegExp(`(?<![\\w-])${f}(?![\\w-])`).test(cell)));
      const real = new Set(owners.flatMap((o) => [...imports(o)]));
      return [
        ...[...real].filter((f) => !named.has(f)).map((f) => `${owners.join(", ")}: imports ${f}, which its row does not name`),
        ...[...named].filter((f) => !real.has(f)).map((f) => `${owners.join(", ")}: its row names ${f}, which it does not import`),
      ];
    });
    expect(wrong).toEqual([]);
  });
});
