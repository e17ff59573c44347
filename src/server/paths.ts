import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Works from src/ (tsx, vitest) and from the esbuild bundle in dist/: walk up to package.json.
function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));
