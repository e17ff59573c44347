import { execFile } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { Config } from "../../config.js";
import type { Logger } from "../../log.js";

const run = promisify(execFile);

export interface SandboxInfo {
  /** 'bwrap': every child in a bubblewrap sandbox; 'none': plain child processes (warned about) */
  kind: "bwrap" | "none";
  /** egress: own network namespace with NAT to the outside only (slirp4netns); none: loopback only; host: the host's network */
  network: "egress" | "none" | "host";
  warnings: string[];
}

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    const p = path.join(dir, bin);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Decides at start-up how children are isolated, and says loudly when they are not. */
export async function detectSandbox(config: Pick<Config, "SANDBOX" | "SANDBOX_NETWORK">, log: Logger): Promise<SandboxInfo> {
  const warnings: string[] = [];
  let kind: SandboxInfo["kind"] = "none";
  if (config.SANDBOX === "off") {
    warnings.push("SANDBOX=off: hosted MCP servers run as plain processes with access to this machine. Use only for development.");
  } else {
    const bwrap = onPath("bwrap");
    const works = bwrap && (await run(bwrap, ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--die-with-parent", "--cap-drop", "ALL", "true"], { timeout: 10_000 }).then(() => true, () => false));
    if (works) kind = "bwrap";
    else if (config.SANDBOX === "bwrap") throw new Error(bwrap ? "SANDBOX=bwrap but bubblewrap cannot create namespaces here" : "SANDBOX=bwrap but bwrap is not installed (apt-get install bubblewrap)");
    else warnings.push(`bubblewrap (bwrap) is ${bwrap ? "installed but cannot create namespaces here" : "not installed"}: hosted MCP servers run WITHOUT a sandbox and can read this machine's files. Install it: apt-get install bubblewrap`);
  }
  let network: SandboxInfo["network"] = config.SANDBOX_NETWORK;
  if (kind === "none") network = "host";
  else if (network === "egress" && !onPath("slirp4netns")) {
    network = "none";
    warnings.push("slirp4netns is not installed: hosted MCP servers get no network at all (SANDBOX_NETWORK=egress needs it: apt-get install slirp4netns)");
  } else if (network === "host") {
    warnings.push("SANDBOX_NETWORK=host: hosted MCP servers can reach this machine's local services (the database, the app's ports)");
  }
  for (const w of warnings) log.warn(`SANDBOX WARNING: ${w}`);
  return { kind, network, warnings };
}

export interface SandboxSpec {
  /** the program and its arguments (no shell, ever) */
  argv: string[];
  /** the only writable directory; also the working directory and HOME */
  workDir: string;
  readOnly: string[];
  /** whether this step may use the network (installs and runs may; the sandbox decides how) */
  network: boolean;
}

// What a Node program needs to run: the system's binaries and libraries, TLS roots and DNS
// configuration. Nothing from /home, /root, /var or the platform's own directories.
const ETC = ["/etc/resolv.conf", "/etc/hosts", "/etc/ssl", "/etc/ca-certificates", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/localtime", "/etc/alternatives"];

let binds: string[] | undefined;

/** The same for every child, so worked out once. */
function systemBinds(): string[] {
  return (binds ??= computeSystemBinds());
}

function computeSystemBinds(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const d of ["/bin", "/lib", "/lib64", "/sbin", "/lib32"]) {
    try {
      const st = lstatSync(d);
      // merged-/usr systems: /bin -> usr/bin
      if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(d), d);
      else args.push("--ro-bind", d, d);
    } catch {
      // not on this system
    }
  }
  for (const e of ETC) args.push("--ro-bind-try", e, e);
  const nodePrefix = path.dirname(path.dirname(process.execPath));
  if (!nodePrefix.startsWith("/usr")) args.push("--ro-bind", nodePrefix, nodePrefix);
  return args;
}

/**
 * The bwrap argv for one child: fresh pid/ipc/uts/net namespaces, no capabilities, a read-only
 * system, a private /tmp, and only `workDir` writable. The child dies with its parent.
 * `infoFd`/`blockFd` let the runner attach the egress network before the program starts.
 */
export function bwrapArgs(info: SandboxInfo, spec: SandboxSpec, fds?: { infoFd: number; blockFd: number }): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--hostname", "mcp"];
  if (!(spec.network && info.network === "host")) args.push("--unshare-net");
  args.push(...systemBinds(), "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  for (const d of spec.readOnly) args.push("--ro-bind", d, d);
  args.push("--bind", spec.workDir, spec.workDir, "--chdir", spec.workDir);
  if (fds) args.push("--info-fd", String(fds.infoFd), "--block-fd", String(fds.blockFd));
  args.push("--", ...spec.argv);
  return args;
}
