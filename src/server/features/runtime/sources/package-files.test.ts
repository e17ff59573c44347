import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_TREE_DEPTH, sealOnce, TreeTooDeep, treeBytes } from "./package-files.js";

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

describe("sealing a cache's tree", () => {
  const mode = async (p: string) => ((await fs.lstat(p)).mode & 0o7777).toString(8);

  it("leaves no write bit but the owner's, no set-id or sticky bit, readable by all, and follows no link", async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "seal-"));
    const outside = path.join(dir, "outside");
    await fs.writeFile(outside, "host");
    await fs.chmod(outside, 0o666);
    const tree = path.join(dir, "tree");
    await fs.mkdir(path.join(tree, "open/sticky"), { recursive: true });
    await fs.chmod(path.join(tree, "open"), 0o777);
    await fs.chmod(path.join(tree, "open/sticky"), 0o1777);
    await fs.writeFile(path.join(tree, "open/file"), "x");
    await fs.chmod(path.join(tree, "open/file"), 0o666);
    await fs.writeFile(path.join(tree, "open/suid"), "x");
    await fs.chmod(path.join(tree, "open/suid"), 0o4770);
    await fs.writeFile(path.join(tree, "private"), "x");
    await fs.chmod(path.join(tree, "private"), 0o600);
    await fs.symlink(outside, path.join(tree, "open/link"));
    await fs.chmod(tree, 0o777);
    await sealOnce(tree);
    expect(await mode(tree)).toBe("755");
    expect(await mode(path.join(tree, "open"))).toBe("755");
    expect(await mode(path.join(tree, "open/sticky"))).toBe("755");
    expect(await mode(path.join(tree, "open/file"))).toBe("644");
    expect(await mode(path.join(tree, "open/suid"))).toBe("755");
    expect(await mode(path.join(tree, "private"))).toBe("644");
    expect(await mode(outside)).toBe("666");
    // The platform's note lies beside the entry, in a folder of its own, never in what an install wrote.
    expect((await fs.lstat(path.join(dir, ".sealed", "tree"))).isFile()).toBe(true);
  });

  it("seals an entry an older version kept once, whatever a marker inside it says, and walks no folder it cannot open unseen", async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "seal-"));
    const old = path.join(dir, "old");
    await fs.mkdir(old);
    await fs.writeFile(path.join(old, "file"), "x");
    await fs.chmod(path.join(old, "file"), 0o666);
    // A wheel may write to its environment's root: a marker of the install's own says nothing.
    await fs.writeFile(path.join(old, ".sealed"), "");
    await Promise.all([sealOnce(old), sealOnce(old)]);
    expect(await mode(path.join(old, "file"))).toBe("644");
    // A folder its owner may not even read is opened for it (the owner keeps read and write), so nothing in it escapes.
    const locked = path.join(dir, "locked");
    await fs.mkdir(path.join(locked, "closed"), { recursive: true });
    await fs.writeFile(path.join(locked, "closed", "f"), "x");
    await fs.chmod(path.join(locked, "closed", "f"), 0o666);
    await fs.chmod(path.join(locked, "closed"), 0o000);
    await sealOnce(locked);
    expect(await mode(path.join(locked, "closed"))).toBe("755");
    expect(await mode(path.join(locked, "closed", "f"))).toBe("644");
  });
});
