import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { mountPoints } from "~/server/features/runtime/sandbox/volumes.js";

/**
 * Removes a test's data directory, first detaching deployment volumes a killed platform left
 * mounted in it (a platform stopped gracefully unmounts them itself).
 */
export async function removeDataDir(dir: string): Promise<void> {
  for (const p of mountPoints()) {
    if (p.startsWith(dir + path.sep)) await promisify(execFile)("umount", ["-l", p]).catch(() => {});
  }
  await fs.rm(dir, { recursive: true, force: true });
}
