import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_TREE_DEPTH, TreeTooDeep, treeBytes } from "./package-files.js";

// The disk watch of installs that run package code (sdist builds): it sizes what a build wrote
// while the build may still be changing it.

let dir: string;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("treeBytes", () => {
  it("counts files, folders and links as themselves, and follows no link", async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "treebytes-"));
    await fs.mkdir(path.join(dir, "a", "b"), { recursive: true });
    await fs.writeFile(path.join(dir, "a", "b", "f"), Buffer.alloc(10_000));
    await fs.symlink("/usr", path.join(dir, "usr"));
    const total = await treeBytes(dir);
    expect(total).toBeGreaterThanOrEqual(10_000 + "/usr".length);
    // Folders count (their own blocks), /usr does not.
    expect(total).toBeLessThan(10_000 + 4 + 4 * 8192);
    expect(await treeBytes(path.join(dir, "usr"))).toBe(0);
    expect(await treeBytes(path.join(dir, "missing"))).toBe(0);
  });

  it(`stops at a tree nested deeper than ${MAX_TREE_DEPTH} folders instead of holding a descriptor per level`, async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "treebytes-"));
    await fs.mkdir(path.join(dir, ...Array<string>(MAX_TREE_DEPTH + 5).fill("d")), { recursive: true });
    await expect(treeBytes(dir)).rejects.toBeInstanceOf(TreeTooDeep);
  });
});
