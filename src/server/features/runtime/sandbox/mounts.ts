// What the platform's mount handling shares (deployment volumes, image layers): this process's
// mount points, and unmounting.
import { readFileSync } from "node:fs";
import { hostRun } from "./host-process.js";

/** Mount points of this process's view, unescaped (mountinfo writes spaces as \040). */
export function mountPoints(): Set<string> {
  try {
    return new Set(
      readFileSync("/proc/self/mountinfo", "utf8")
        .split("\n")
        .map((l) => l.split(" ")[4])
        .filter((p): p is string => Boolean(p))
        .map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)))),
    );
  } catch {
    return new Set();
  }
}

export async function unmount(dir: string): Promise<void> {
  try {
    await hostRun("umount", [dir]);
  } catch {
    // Something still holds it (a process not yet reaped): detach now, freed when it lets go.
    await hostRun("umount", ["-l", dir]);
  }
}
