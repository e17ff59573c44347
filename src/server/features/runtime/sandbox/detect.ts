import fs from "node:fs/promises";
import path from "node:path";
import type { Config } from "~/server/config.js";
import type { Logger } from "~/server/log.js";
import { projectRoot } from "~/server/paths.js";
import { bwrapFeatures } from "./bwrap.js";
import { detectCgroups, removeStaleGroups, type CgroupSupport } from "./cgroup.js";
import { parseAllowList } from "./cidr.js";
import { egressPolicyProblem } from "./egress.js";
import { hostAddresses } from "./egress-rules.js";
import { closeInheritedFds } from "./fds.js";
import { UidPool } from "./identity.js";
import { Sandbox, type Guarantee, type SandboxInfo, type SandboxParts } from "./index.js";
import { compileSeccomp, deniedSyscalls, seccompArch } from "./seccomp.js";
import { Volumes } from "./volumes.js";
import { hiddenFolders, loopVolumes, makeTraversable, openTunDevice, uidRangeOverlap } from "./host-prep.js";
import { probe, which, type ProbeResult } from "./probe.js";

// Decides at start-up how hosted code is isolated here, by trying it: a probe program is launched
// exactly as a deployment would be and reports what it can do. Each guarantee of the threat model
// (docs/hosting.md) is then 'ok' or missing with the reason, for the log and the admin page.

export type SandboxConfig = Pick<
  Config,
  | "SANDBOX"
  | "SANDBOX_NETWORK"
  | "SANDBOX_EGRESS_ALLOW"
  | "SANDBOX_UID_BASE"
  | "DEPLOY_MEMORY_MB"
  | "DEPLOY_MAX_PROCESSES"
  | "DEPLOY_DISK_MB"
  | "DEPLOY_CPUS"
>;

export interface Hosting {
  sandbox: Sandbox;
  uids: UidPool;
  volumes: Volumes;
}

function guarantee(key: Guarantee["key"], label: string, ok: boolean, how: string): Guarantee {
  return { key, label, ok, how };
}

export async function createHosting(
  config: SandboxConfig,
  dirs: { data: string; deployments: string; packages: string },
  log: Logger,
): Promise<Hosting> {
  const closed = closeInheritedFds();
  if (closed.length) log.warn({ fds: closed }, "closed descriptors inherited without close-on-exec, so no hosted server receives them");
  for (const d of [dirs.deployments, dirs.packages]) {
    await fs.mkdir(d, { recursive: true });
    await fs.chmod(d, 0o711);
  }
  const etcDir = path.join(dirs.deployments, ".etc");
  await fs.mkdir(etcDir, { recursive: true });
  await fs.chmod(etcDir, 0o711);
  const root = process.getuid?.() === 0;
  const uids = new UidPool(path.join(dirs.deployments, ".uids.json"), root ? config.SANDBOX_UID_BASE : null);
  const limits = `${config.DEPLOY_MEMORY_MB} MB`;
  /** what the log and the admin page say besides the guarantees */
  const notes: string[] = [];
  const egressAllow = parseAllowList(config.SANDBOX_EGRESS_ALLOW);

  const cgroups: CgroupSupport | null = config.SANDBOX === "off" ? null : await detectCgroups();
  if (cgroups) await removeStaleGroups(cgroups);
  const loopProblem = config.SANDBOX === "off" ? "SANDBOX=off" : await loopVolumes(dirs.deployments);
  const volumes = new Volumes({
    dir: dirs.deployments,
    diskMb: config.DEPLOY_DISK_MB,
    loop: loopProblem === null,
    onLayerError: (err) => log.warn({ err }, "an image's writable layer could not be mounted: it runs on its tree read-only"),
  });
  const prlimit = which("prlimit");
  const parts: Omit<SandboxParts, "info"> = {
    cgroups,
    prlimit,
    nprocFallback: uids.dedicated,
    egressAllow,
    etcDir,
    setupUid: uids.setupUid(),
    hide: hiddenFolders([projectRoot, dirs.data]),
  };
  // Sandbox uids that belong to someone else would hand that account a tenant's files: a configuration error.
  const overlap = uids.dedicated && config.SANDBOX !== "off" ? uidRangeOverlap(config.SANDBOX_UID_BASE) : null;
  if (overlap) throw new Error(`${overlap}: choose a SANDBOX_UID_BASE whose 65,536 ids nobody else uses`);

  const memory = cgroups
    ? guarantee("memory", "Memory limit", true, `${limits}, by the kernel (cgroup v${cgroups.version}); the private /tmp counts against it`)
    : guarantee(
        "memory",
        "Memory limit",
        true,
        `${limits}, by a watchdog counting every process of the sandbox and its private /tmp (no writable cgroup here)`,
      );
  const cpu = cgroups
    ? guarantee(
        "cpu",
        "CPU share",
        true,
        `${config.DEPLOY_CPUS > 0 ? `at most ${config.DEPLOY_CPUS} core(s) each` : "no quota"}; all deployments together weigh like one platform thread (cgroup v${cgroups.version})`,
      )
    : guarantee("cpu", "CPU share", false, "no writable cpu cgroup here");
  const processes = cgroups
    ? guarantee("processes", "Process limit", true, `${config.DEPLOY_MAX_PROCESSES} processes and threads (pids cgroup)`)
    : uids.dedicated && prlimit
      ? guarantee(
          "processes",
          "Process limit",
          true,
          `${config.DEPLOY_MAX_PROCESSES} processes and threads (RLIMIT_NPROC of the deployment's own uid)`,
        )
      : guarantee("processes", "Process limit", false, "no pids cgroup, and no uid of its own per deployment for RLIMIT_NPROC");
  const disk =
    loopProblem === null
      ? guarantee("disk", "Disk limit", true, `${config.DEPLOY_DISK_MB} MB, a volume of its own (ext4, nosuid, nodev)`)
      : guarantee("disk", "Disk limit", false, loopProblem);

  /** `launcher`: the bubblewrap parts the probe ran with (absent: plain processes). */
  const finish = (
    info: Omit<SandboxInfo, "complete" | "warnings" | "notes" | "guarantees">,
    list: Guarantee[],
    launcher: Pick<SandboxParts, "bwrap" | "seccomp"> = {},
  ): Hosting => {
    const warnings = [...notes, ...list.filter((g) => !g.ok).map((g) => `${g.label}: missing (${g.how})`)];
    const complete = list.every((g) => g.ok);
    if (config.SANDBOX === "strict" && !complete)
      throw new Error(`SANDBOX=strict, but hosted code cannot be fully isolated here:\n${warnings.map((w) => `  - ${w}`).join("\n")}`);
    for (const w of warnings) log.warn(`SANDBOX WARNING: ${w}`);
    log.info(
      { layer: info.layer },
      complete ? "hosting sandbox: every guarantee holds" : "hosting sandbox is incomplete: only admins may deploy (SANDBOX_INCOMPLETE)",
    );
    const full: SandboxInfo = { ...info, guarantees: list, complete, warnings, notes };
    return { sandbox: new Sandbox({ ...parts, ...launcher, info: full }), uids, volumes };
  };

  const none = (why: string): Hosting => {
    notes.push(why);
    return finish({ kind: "none", network: "host", layer: "none: plain processes" }, [
      guarantee("uid", "Unprivileged uid", !root, root ? "hosted code runs as root" : "hosted code runs as the platform's own uid"),
      guarantee("namespaces", "Namespaces", false, "no bubblewrap: hosted code sees this machine's files and processes"),
      guarantee("seccomp", "Seccomp filter", false, "needs bubblewrap"),
      guarantee(
        "kernel",
        "Kernel interfaces read-only",
        !root,
        root ? "/proc/sys is writable by root" : "only what the platform's uid may write",
      ),
      guarantee("egress", "Egress to public addresses only", false, "hosted code uses this machine's network"),
      memory,
      // Plain processes run as the platform's uid: only a pids cgroup can count them.
      cgroups ? processes : guarantee("processes", "Process limit", false, "no pids cgroup, and plain processes have no uid of their own"),
      disk,
      cpu,
      guarantee("fds", "Only stdin, stdout and stderr open", true, "inherited descriptors are closed at start-up"),
    ]);
  };

  if (config.SANDBOX === "off")
    return none("SANDBOX=off: hosted MCP servers run as plain processes with access to this machine. Use only for development.");
  const bin = which("bwrap");
  if (!bin) {
    if (config.SANDBOX !== "auto") throw new Error(`SANDBOX=${config.SANDBOX} but bwrap is not installed (apt-get install bubblewrap)`);
    return none(
      "bubblewrap (bwrap) is not installed: hosted MCP servers run WITHOUT a sandbox and can read this machine's files. Install it: apt-get install bubblewrap",
    );
  }
  const features = await bwrapFeatures(bin);
  const arch = seccompArch();
  const seccomp = arch ? compileSeccomp(arch) : undefined;
  let network = config.SANDBOX_NETWORK;
  const missingNet = ["slirp4netns", "nsenter", "ip"].filter((b) => !which(b));
  if (network === "egress" && missingNet.length) {
    network = "none";
    notes.push(
      `${missingNet.join(", ")} missing: hosted MCP servers get no network at all (SANDBOX_NETWORK=egress needs them: apt-get install slirp4netns util-linux iproute2)`,
    );
  }
  if (network === "egress" && uids.dedicated) await openTunDevice(log);
  const traverse = uids.dedicated
    ? await makeTraversable([dirs.deployments, dirs.packages], [dirs.data, dirs.deployments, dirs.packages])
    : null;
  const target = hostAddresses().find((a) => !a.internal && a.address.includes("."))?.address;
  const attempt = async (userns: boolean) => {
    const info: SandboxInfo = { kind: "bwrap", network, layer: "", guarantees: [], complete: false, warnings: [], notes: [] };
    const sandbox = new Sandbox({ ...parts, info, bwrap: { bin, features, userns }, seccomp });
    return { sandbox, result: await probe(sandbox, uids, "/", network === "egress" ? { target, multicast: true } : {}) };
  };
  let userns = true;
  let tried: { result: ProbeResult };
  let usernsProblem = traverse ?? "";
  try {
    if (traverse) throw new Error(traverse);
    tried = await attempt(true);
  } catch (e) {
    usernsProblem ||= `bubblewrap could not start a user namespace here: ${(e as Error).message}`;
    userns = false;
    try {
      tried = await attempt(false);
    } catch (e2) {
      if (config.SANDBOX !== "auto")
        throw new Error(`SANDBOX=${config.SANDBOX} but bubblewrap cannot create a sandbox here: ${(e2 as Error).message}`, { cause: e2 });
      return none(
        `bubblewrap is installed but cannot create a sandbox here (${(e2 as Error).message}): hosted MCP servers run WITHOUT a sandbox.`,
      );
    }
  }
  const r = tried.result;
  const layer = [
    features.version,
    userns ? "user namespace" : "no user namespace",
    seccomp && r.seccomp === "2" ? "seccomp" : null,
    cgroups ? `cgroup v${cgroups.version}` : "watchdog",
    loopProblem === null ? "ext4 volumes" : null,
    network === "egress" ? "slirp4netns" : network === "none" ? "no network" : "host network",
  ]
    .filter(Boolean)
    .join(", ");
  const unprivileged = userns && r.hostUid !== 0 && /^0+$/.test(r.capEff ?? "") && r.nnp === "1";
  const policies = egressPolicyProblem();
  const egressOk =
    network === "none" || (network === "egress" && (target === undefined || r.egress === "EACCES") && r.multicast === "EPERM");
  return finish(
    { kind: "bwrap", network, layer },
    [
      guarantee(
        "uid",
        "Unprivileged uid",
        unprivileged,
        unprivileged
          ? uids.dedicated
            ? `a host uid of its own per deployment (from ${config.SANDBOX_UID_BASE + 1}), no capabilities, no new privileges`
            : `the platform's own uid ${r.hostUid}, shared by all deployments (the platform is not root), no capabilities`
          : usernsProblem || `the sandbox runs as uid ${r.hostUid} of the host`,
      ),
      guarantee(
        "namespaces",
        "Namespaces",
        true,
        `own mount, pid, ipc, uts, cgroup${network !== "host" ? ", network" : ""}${userns ? " and user namespaces" : " namespaces"}`,
      ),
      guarantee(
        "seccomp",
        "Seccomp filter",
        r.seccomp === "2",
        r.seccomp === "2"
          ? `${Object.keys(deniedSyscalls(arch!)).length} system calls refused (mount, bpf, keyctl, perf_event_open, userfaultfd, io_uring, ptrace, ...), no new namespaces`
          : arch
            ? "bubblewrap did not apply the filter"
            : `no system call table for ${process.arch}`,
      ),
      guarantee(
        "kernel",
        "Kernel interfaces read-only",
        r.sys !== "writable",
        r.sys !== "writable"
          ? "/proc/sys and the rest of /proc are not writable, /sys is absent"
          : "the sandbox can write /proc/sys (it runs as uid 0 of the host)",
      ),
      guarantee(
        "egress",
        "Egress to public addresses only",
        egressOk,
        network === "none"
          ? "no network at all (SANDBOX_NETWORK=none)"
          : network === "host"
            ? "SANDBOX_NETWORK=host: hosted code uses this machine's network and reaches its local services"
            : egressOk
              ? `loopback, this machine's addresses, private, CGNAT, link-local ranges, broadcast and multicast are refused, whatever socket options are used${egressAllow.length ? `; opened by SANDBOX_EGRESS_ALLOW: ${egressAllow.join(", ")}` : ""}${target ? "" : " (not verified: this machine has no address of its own)"}`
              : target !== undefined && r.egress !== "EACCES"
                ? `a connection to this machine's own address ${target} was not refused (${r.egress})`
                : `a multicast datagram from the sandbox's own address was not refused (${r.multicast ?? "not tried"})${policies ? `: ${policies}` : ""}`,
      ),
      memory,
      processes,
      disk,
      cpu,
      guarantee(
        "fds",
        "Only stdin, stdout and stderr open",
        r.fds === 0,
        r.fds === 0 ? "inherited descriptors are closed; bubblewrap's own are consumed" : `${r.fds} extra descriptor(s) reached the probe`,
      ),
    ],
    { bwrap: { bin, features, userns }, seccomp },
  );
}
