import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ensureFile } from "./bwrap.js";
import type { Limits } from "./cgroup.js";

// The sandbox's /proc is its own (its pid namespace), but some of its files show the whole
// machine: load, CPU and memory use, disk activity, pressure, open files. Those are other tenants'
// figures (a side channel on what they do), so each is covered, as container runtimes do (LXCFS),
// by a read-only file with a neutral view: nothing running, nothing used, the deployment's own
// memory limit as the machine's memory and one CPU per core of its quota. Programs keep working:
// an empty /proc/stat would abort Node's os.cpus() (libuv) and psutil needs MemTotal, so the files
// keep the kernel's format, with figures that never change. Files absent on this kernel (no
// pressure stall information, say) stay absent.

export interface ProcMask {
  /** a root-owned file of the platform's */
  source: string;
  /** the file of the sandbox's /proc it covers */
  dest: string;
}

export interface HostFacts {
  /** boot time in seconds since the epoch (the `btime` of /proc/stat: not a tenant's figure) */
  btime: number;
  /** /proc/sys/fs/file-max (a setting, not a use) */
  fileMax: string;
  /** cores the machine offers a process */
  cpus: number;
}

const PSI = "avg10=0.00 avg60=0.00 avg300=0.00 total=0";

/** The neutral content of each masked file, by its path inside. */
export function procMaskTexts(limits: Limits, host: HostFacts): Record<string, string> {
  const cpus = limits.cpus > 0 ? Math.max(1, Math.min(Math.ceil(limits.cpus), host.cpus)) : host.cpus;
  const times = " 0 0 0 0 0 0 0 0 0 0";
  const kb = limits.memoryMb * 1024;
  const meminfo: [string, number][] = [
    ["MemTotal", kb],
    ["MemFree", kb],
    ["MemAvailable", kb],
    ...[
      "Buffers",
      "Cached",
      "SwapCached",
      "Active",
      "Inactive",
      "SwapTotal",
      "SwapFree",
      "Dirty",
      "Writeback",
      "AnonPages",
      "Mapped",
      "Shmem",
      "Slab",
      "SReclaimable",
      "SUnreclaim",
    ].map((k): [string, number] => [k, 0]),
  ];
  return {
    "/proc/loadavg": "0.00 0.00 0.00 1/1 1\n",
    "/proc/stat": [
      `cpu ${times}`,
      ...Array.from({ length: cpus }, (_, i) => `cpu${i}${times}`),
      "intr 0",
      "ctxt 0",
      `btime ${host.btime}`,
      "processes 0",
      "procs_running 1",
      "procs_blocked 0",
      "softirq 0 0 0 0 0 0 0 0 0 0 0",
      "",
    ].join("\n"),
    "/proc/meminfo": meminfo.map(([k, v]) => `${`${k}:`.padEnd(16)}${String(v).padStart(8)} kB\n`).join(""),
    "/proc/diskstats": "",
    "/proc/vmstat": "",
    "/proc/zoneinfo": "",
    "/proc/interrupts": "",
    "/proc/softirqs": "",
    "/proc/schedstat": "",
    "/proc/swaps": "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
    "/proc/pressure/cpu": `some ${PSI}\nfull ${PSI}\n`,
    "/proc/pressure/io": `some ${PSI}\nfull ${PSI}\n`,
    "/proc/pressure/memory": `some ${PSI}\nfull ${PSI}\n`,
    "/proc/pressure/irq": `full ${PSI}\n`,
    "/proc/sys/fs/file-nr": `0\t0\t${host.fileMax}\n`,
    "/proc/sys/fs/inode-nr": "0\t0\n",
    "/proc/sys/fs/inode-state": "0\t0\t0\t0\t0\t0\t0\n",
    "/proc/sys/fs/dentry-state": "0\t0\t45\t0\t0\t0\n",
  };
}

function hostFacts(): HostFacts {
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "";
    }
  };
  return {
    btime: Number(/^btime\s+(\d+)/m.exec(read("/proc/stat"))?.[1] ?? 0),
    fileMax: /^\d+/.exec(read("/proc/sys/fs/file-max"))?.[0] ?? "9223372036854775807",
    cpus: os.availableParallelism(),
  };
}

/**
 * The masks of one launch: files written once per content (named by its digest, so a sandbox
 * starting meanwhile binds a complete file), root-owned and world-readable in `dir`.
 */
export async function procMasks(dir: string, limits: Limits): Promise<ProcMask[]> {
  const folder = path.join(dir, "proc");
  await fs.mkdir(folder, { recursive: true });
  await fs.chmod(folder, 0o711);
  const out: ProcMask[] = [];
  for (const [dest, text] of Object.entries(procMaskTexts(limits, hostFacts()))) {
    // bubblewrap cannot create a file in /proc: only what this kernel has is covered.
    if (!existsSync(dest)) continue;
    const source = path.join(folder, `${path.basename(dest)}-${createHash("sha256").update(text).digest("hex").slice(0, 16)}`);
    await ensureFile(source, text);
    out.push({ source, dest });
  }
  return out;
}
