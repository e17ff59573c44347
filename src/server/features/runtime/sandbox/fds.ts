import { closeSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

// A process inherits every descriptor its parent left open without close-on-exec, and passes it on
// to everything it starts; bubblewrap does not close them either. Node marks every descriptor it
// opens close-on-exec (its IPC channel included), so a descriptor without the flag is one the
// platform inherited and never uses: it is closed, so no sandbox can ever receive it.

const O_CLOEXEC = 0o2000000;

export interface InheritedFd {
  fd: number;
  target: string;
}

/** Descriptors above stderr that would survive an exec. */
export function inheritableFds(): InheritedFd[] {
  const out: InheritedFd[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc/self/fd");
  } catch {
    return out; // not Linux: nothing to do
  }
  for (const name of entries) {
    const fd = Number(name);
    if (fd <= 2) continue;
    try {
      const flags = parseInt(/^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1] ?? "0", 8);
      if (!(flags & O_CLOEXEC)) out.push({ fd, target: readlinkSync(`/proc/self/fd/${fd}`) });
    } catch {
      // the descriptor readdir itself used, or one closed meanwhile
    }
  }
  return out;
}

/** Closes every inherited descriptor; returns what was closed (for the log). */
export function closeInheritedFds(): InheritedFd[] {
  const found = inheritableFds();
  for (const f of found) {
    try {
      closeSync(f.fd);
    } catch {
      // already closed
    }
  }
  return found;
}
