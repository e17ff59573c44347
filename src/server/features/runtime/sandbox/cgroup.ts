import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

// Kernel limits for everything a sandbox runs: memory (tmpfs pages of its private /tmp count
// too), number of tasks, and CPU (a quota of DEPLOY_CPUS cores; all deployments together weigh
// like one of the platform's own threads, so busy tenants never starve the web and gateway).
// cgroup v1 (memory, pids and cpu hierarchies, as on this machine kind) and v2 (a unified
// hierarchy with those controllers) are both supported; the platform needs write access to the
// hierarchy (root, or a delegated v2 subtree). Each launch gets a group of its own, removed after.

export interface Limits {
  memoryMb: number;
  maxProcesses: number;
  /** cores; 0: no quota, only the share */
  cpus: number;
}

export type CgroupSupport = { version: 1; memory: string; pids: string; cpu: string } | { version: 2; root: string };

const PARENT = "switchboard";

function mounts(): { point: string; type: string; options: string[] }[] {
  try {
    return readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const [pre = "", post = ""] = l.split(" - ");
        const [type = "", , superOpts = ""] = post.split(" ");
        return { point: pre.split(" ")[4] ?? "", type, options: superOpts.split(",") };
      });
  } catch {
    return [];
  }
}

async function writable(dir: string): Promise<boolean> {
  const probe = path.join(dir, `${PARENT}-probe-${randomBytes(3).toString("hex")}`);
  try {
    await fs.mkdir(probe);
    await fs.rmdir(probe);
    return true;
  } catch {
    return false;
  }
}

/** Which hierarchy the platform can manage here, with the parent group created; null when none. */
export async function detectCgroups(): Promise<CgroupSupport | null> {
  const all = mounts();
  const v1 = (ctrl: string) => all.find((m) => m.type === "cgroup" && m.options.includes(ctrl))?.point;
  const memory = v1("memory");
  const pids = v1("pids");
  const cpu = v1("cpu");
  if (memory && pids && cpu) {
    const dirs = [memory, pids, cpu].map((d) => path.join(d, PARENT));
    try {
      for (const d of dirs) await fs.mkdir(d, { recursive: true });
      if (await Promise.all(dirs.map(writable)).then((ok) => ok.every(Boolean))) {
        // All deployments together get one default share against the platform's tasks.
        await fs.writeFile(path.join(cpu, PARENT, "cpu.shares"), "1024").catch(() => {});
        return { version: 1, memory: dirs[0]!, pids: dirs[1]!, cpu: dirs[2]! };
      }
    } catch {
      // not ours to manage
    }
  }
  const unified = all.find((m) => m.type === "cgroup2")?.point;
  if (unified && existsSync(path.join(unified, "cgroup.controllers"))) {
    const available = readFileSync(path.join(unified, "cgroup.controllers"), "utf8").trim().split(/\s+/);
    if (["memory", "pids", "cpu"].every((c) => available.includes(c))) {
      const root = path.join(unified, PARENT);
      try {
        await fs.writeFile(path.join(unified, "cgroup.subtree_control"), "+memory +pids +cpu").catch(() => {});
        await fs.mkdir(root, { recursive: true });
        await fs.writeFile(path.join(root, "cgroup.subtree_control"), "+memory +pids +cpu");
        if (await writable(root)) return { version: 2, root };
      } catch {
        // no delegation here
      }
    }
  }
  return null;
}

const readNumber = (file: string, key?: string): number => {
  try {
    const text = readFileSync(file, "utf8");
    if (!key) return Number(text.trim()) || 0;
    return Number(new RegExp(`^${key}\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
};

export class Cgroup {
  private constructor(
    private readonly support: CgroupSupport,
    private readonly dirs: string[],
  ) {}

  static async create(support: CgroupSupport, name: string, limits: Limits): Promise<Cgroup> {
    const leaf = `${name}-${randomBytes(3).toString("hex")}`;
    const mem = String(limits.memoryMb * 1024 * 1024);
    const quota = limits.cpus > 0 ? Math.round(limits.cpus * 100_000) : -1;
    if (support.version === 1) {
      const dirs = [support.memory, support.pids, support.cpu].map((d) => path.join(d, leaf));
      const [m, p, c] = dirs as [string, string, string];
      for (const d of dirs) await fs.mkdir(d);
      const g = new Cgroup(support, dirs);
      try {
        await fs.writeFile(path.join(m, "memory.limit_in_bytes"), mem);
        // Swap is no way around the limit: counted in it where the kernel accounts swap, never used otherwise.
        if (existsSync(path.join(m, "memory.memsw.limit_in_bytes"))) await fs.writeFile(path.join(m, "memory.memsw.limit_in_bytes"), mem);
        await fs.writeFile(path.join(m, "memory.swappiness"), "0").catch(() => {});
        await fs.writeFile(path.join(p, "pids.max"), String(limits.maxProcesses));
        await fs.writeFile(path.join(c, "cpu.cfs_period_us"), "100000");
        await fs.writeFile(path.join(c, "cpu.cfs_quota_us"), String(quota));
      } catch (e) {
        await g.remove();
        throw e;
      }
      return g;
    }
    const dir = path.join(support.root, leaf);
    await fs.mkdir(dir);
    const g = new Cgroup(support, [dir]);
    try {
      await fs.writeFile(path.join(dir, "memory.max"), mem);
      await fs.writeFile(path.join(dir, "memory.swap.max"), "0").catch(() => {});
      // One process over the limit takes the whole sandbox with it, as under v1 (see Launched).
      await fs.writeFile(path.join(dir, "memory.oom.group"), "1").catch(() => {});
      await fs.writeFile(path.join(dir, "pids.max"), String(limits.maxProcesses));
      await fs.writeFile(path.join(dir, "cpu.max"), `${quota < 0 ? "max" : quota} 100000`);
    } catch (e) {
      await g.remove();
      throw e;
    }
    return g;
  }

  /** Moves a process (and so everything it starts later) into the group. */
  async join(pid: number): Promise<void> {
    for (const d of this.dirs) await fs.writeFile(path.join(d, "cgroup.procs"), String(pid));
  }

  private get memoryDir(): string {
    return this.dirs[0]!;
  }

  private get pidsDir(): string {
    return this.support.version === 1 ? this.dirs[1]! : this.dirs[0]!;
  }

  /** Processes the kernel killed for going over the memory limit. */
  oomKills(): number {
    return this.support.version === 1
      ? readNumber(path.join(this.memoryDir, "memory.oom_control"), "oom_kill")
      : readNumber(path.join(this.memoryDir, "memory.events"), "oom_kill");
  }

  /** Times a fork was refused by the process limit. */
  processLimitHits(): number {
    return readNumber(path.join(this.pidsDir, "pids.events"), "max");
  }

  memoryBytes(): number {
    return readNumber(path.join(this.memoryDir, this.support.version === 1 ? "memory.usage_in_bytes" : "memory.current"));
  }

  /** The most memory the group ever used (v1 records it; v2 since Linux 5.19). */
  peakMemoryBytes(): number {
    return readNumber(path.join(this.memoryDir, this.support.version === 1 ? "memory.max_usage_in_bytes" : "memory.peak"));
  }

  procs(): number[] {
    const out = new Set<number>();
    for (const d of this.dirs) {
      try {
        for (const l of readFileSync(path.join(d, "cgroup.procs"), "utf8").split("\n")) if (l) out.add(Number(l));
      } catch {
        // removed already
      }
    }
    return [...out];
  }

  killAll(): void {
    for (const pid of this.procs()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }

  /** Kills what is left and removes the group (retrying while the kernel reaps the last tasks). */
  async remove(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      this.killAll();
      const left = await Promise.all(
        this.dirs.map((d) =>
          fs.rmdir(d).then(
            () => false,
            (e: NodeJS.ErrnoException) => e.code !== "ENOENT",
          ),
        ),
      );
      if (!left.some(Boolean)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/**
 * Groups left behind by a platform that was killed: removed at start-up (their processes died
 * with it; a group still in use cannot be removed). Young ones may be another platform process's
 * launch in progress, so only groups older than a minute go.
 */
export async function removeStaleGroups(support: CgroupSupport): Promise<void> {
  const parents = support.version === 1 ? [support.memory, support.pids, support.cpu] : [support.root];
  for (const parent of parents) {
    for (const e of await fs.readdir(parent, { withFileTypes: true }).catch(() => [])) {
      if (!e.isDirectory()) continue;
      const dir = path.join(parent, e.name);
      const st = await fs.stat(dir).catch(() => null);
      if (st && Date.now() - st.mtimeMs > 60_000) await fs.rmdir(dir).catch(() => {});
    }
  }
}
