// What the platform's mount handling shares (deployment volumes, image layers, the HTTP relay):
// the system's PATH for the tools it runs, this process's mount points, and unmounting.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";

export const run = promisify(execFile);
/** PATH for mount, umount, mkfs.ext4, nsenter and socat: the system's own folders only. */
export const SYS_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

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
    await run("umount", [dir], { env: { PATH: SYS_PATH } });
  } catch {
    // Something still holds it (a process not yet reaped): detach now, freed when it lets go.
    await run("umount", ["-l", dir], { env: { PATH: SYS_PATH } });
  }
}
