import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "~/server/log.js";
import { systemRoots } from "./bwrap.js";
import { which } from "./probe.js";
import { mountPoints, Volumes } from "./volumes.js";

// What the host must offer before any sandbox starts: loop volumes, folders every sandbox uid can
// pass through, a usable /dev/net/tun, the platform's own folders hidden, and a uid range that
// belongs to nobody else.

/** Loop devices and ext4 for per-deployment volumes: tried once with a small throwaway volume. */
export async function loopVolumes(dir: string): Promise<string | null> {
  if (process.getuid?.() !== 0) return "the platform is not root (mounting a volume needs root)";
  if (!existsSync("/dev/loop-control")) return "this machine has no loop devices (/dev/loop-control)";
  if (!which("mkfs.ext4") || !which("mount")) return "mkfs.ext4 or mount is missing (apt-get install e2fsprogs mount)";
  const id = `probe-${randomBytes(4).toString("hex")}`;
  const v = new Volumes({ dir, diskMb: 16, loop: true });
  try {
    await v.ensure(id, null);
    if (!mountPoints().has(v.path(id))) return "a volume did not mount";
    return null;
  } catch (e) {
    return `a volume could not be created: ${(e as Error).message.split("\n")[0]}`;
  } finally {
    await v.remove(id).catch(() => {});
  }
}

/** Directories every sandbox uid must be able to pass through (bubblewrap binds them as that uid). */
export async function makeTraversable(dirs: string[], own: string[]): Promise<string | null> {
  for (const dir of dirs) {
    for (let p = dir; ; p = path.dirname(p)) {
      const st = statSync(p, { throwIfNoEntry: false });
      if (st && !(st.mode & 0o001)) {
        // The platform's own folders may be opened for passing through (never for listing).
        if (own.some((o) => p === o || p.startsWith(o + path.sep))) await fs.chmod(p, (st.mode & 0o7777) | 0o001);
        else
          return `${p} cannot be passed through by other users, so sandboxed processes cannot reach ${dir}: put DATA_DIR (or DEPLOYMENTS_DIR and PACKAGES_DIR) on a path every user may traverse, such as /var/lib/switchboard`;
      }
      if (p === path.dirname(p)) break;
    }
  }
  return null;
}

/**
 * slirp4netns runs as each deployment's uid and opens /dev/net/tun. udev makes it 0666 on
 * Debian, Ubuntu and Fedora (it only lets a process create tun devices in network namespaces it
 * already administers, and sandboxes do not see the host's /dev); machines without udev leave it
 * 0600, so a root platform sets the usual mode.
 */
export async function openTunDevice(log: Logger): Promise<void> {
  const st = statSync("/dev/net/tun", { throwIfNoEntry: false });
  if (!st || (st.mode & 0o006) === 0o006) return;
  await fs.chmod("/dev/net/tun", 0o666).then(
    () =>
      log.info(
        "made /dev/net/tun usable by unprivileged users (mode 0666, as udev does), so each deployment's slirp4netns runs as its own uid",
      ),
    () => {},
  );
}

/**
 * The platform's own folders where the sandbox's read-only system would show them (an app
 * installed under /usr, as in many container images), and npm's global configuration beside
 * node (it may hold an operator's registry token): covered with an empty tmpfs.
 */
export function hiddenFolders(own: string[]): string[] {
  const roots = systemRoots();
  const under = (p: string) => roots.some((r) => p === r || p.startsWith(r + path.sep));
  const npmrcDir = path.join(path.dirname(path.dirname(process.execPath)), "etc");
  return [
    ...new Set([
      ...own.filter((p) => under(p) && p !== "/usr"),
      ...(existsSync(npmrcDir) && statSync(npmrcDir).isDirectory() ? [npmrcDir] : []),
    ]),
  ];
}

/** The sandbox uids must belong to nobody else: not an account, a group, or a range handed out for other user namespaces. */
export function uidRangeOverlap(base: number): string | null {
  const top = base + 65535;
  const ids = (file: string, field: number) => {
    try {
      return readFileSync(file, "utf8")
        .split("\n")
        .map((l) => l.split(":"))
        .filter((f) => f.length > field);
    } catch {
      return [];
    }
  };
  for (const [file, field] of [
    ["/etc/passwd", 2],
    ["/etc/group", 2],
  ] as const) {
    for (const f of ids(file, field))
      if (Number(f[field]) >= base && Number(f[field]) <= top)
        return `SANDBOX_UID_BASE ${base}..${top} includes ${f[0]} (${f[field]}) of ${file}`;
  }
  for (const file of ["/etc/subuid", "/etc/subgid"]) {
    for (const f of ids(file, 2)) {
      const [start, count] = [Number(f[1]), Number(f[2])];
      if (start <= top && start + count - 1 >= base) return `SANDBOX_UID_BASE ${base}..${top} overlaps ${f[0]}'s range in ${file}`;
    }
  }
  return null;
}
