import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { hostRun } from "./host-process.js";
import type { Identity } from "./identity.js";

export interface BwrapFeatures {
  version: string;
  /** --size for --tmpfs (0.7) */
  tmpfsSize: boolean;
}

export async function bwrapFeatures(bin: string): Promise<BwrapFeatures> {
  const [help, version] = await Promise.all([
    hostRun(bin, ["--help"]).then(
      (r) => r.stdout,
      () => "",
    ),
    hostRun(bin, ["--version"]).then(
      (r) => r.stdout.trim(),
      () => "bubblewrap",
    ),
  ]);
  return { version, tmpfsSize: help.includes("--size") };
}

export interface MountPlan {
  /** working directory inside (the same path as on the host) */
  cwd: string;
  writable: string[];
  readOnly: string[];
  /** host files bound read-only over /etc/passwd, /etc/group and /etc/resolv.conf */
  etc: { passwd: string; group: string; resolv: string };
  /** folders inside the bound system (the platform's own, npm's global configuration) covered by an empty tmpfs */
  hide: string[];
  /** files of /proc showing the whole machine's figures, covered by neutral ones (see proc-masks.ts) */
  masks: { source: string; dest: string }[];
  /** size of the private /tmp and /dev/shm (tmpfs, counted against the memory limit) */
  tmpBytes: number;
  /** a container image's tree, bound read-only as `/` instead of the host's /usr, /bin, ... (and nothing hidden: none of the host is there) */
  root?: string;
  /** `root` is the deployment's own writable layer over the tree (image-layer.ts): bound read-write */
  rootWritable?: boolean;
  /** writable folders bound at another path inside */
  binds?: { source: string; dest: string }[];
  /** 'own': a network namespace of its own (egress is attached from outside, or none at all) */
  network: "own" | "host";
  /**
   * The uid and gid the program has inside its user namespace (the platform writes the maps while
   * bwrap waits on its userns fd); null: no user namespace (only where the kernel refuses one).
   */
  user: { uid: number; gid: number } | null;
}

// What programs need from the system: binaries and libraries, TLS roots, name-service
// configuration. Nothing from /home, /root, /var, /run or the platform's own directories.
const ETC = [
  "/etc/hosts",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/nsswitch.conf",
  "/etc/localtime",
  "/etc/alternatives",
  "/etc/ld.so.cache",
];

let binds: string[] | undefined;

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

/** Folders of the system the sandbox sees (/usr, ..., node's own prefix): what lies under them is visible inside. */
export function systemRoots(): string[] {
  const nodePrefix = path.dirname(path.dirname(process.execPath));
  return ["/usr", "/bin", "/lib", "/lib64", "/sbin", "/lib32", ...(nodePrefix.startsWith("/usr") ? [] : [nodePrefix])];
}

/** PATH inside: the platform's node first (it may live outside /usr), then the system's. */
export const SANDBOX_PATH = [...new Set([path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"])].join(":");

/**
 * The bwrap argv: a user namespace in which the program is an unprivileged uid with no
 * capabilities; its own pid, ipc, uts, cgroup and (unless 'host') network namespaces; a read-only
 * system, its own /proc with the machine-wide figures masked, sized private /tmp and /dev/shm,
 * and only `writable` writable. bwrap waits on `userns` until the platform has written the
 * namespace's uid and gid maps, and on `block` until the platform has placed it in its cgroup and
 * attached its network; `args` carries the program's environment and working directory (descriptorArgs); `seccomp` carries the filter (which also refuses any new namespace, so
 * the one user namespace, which owns the network namespace, is the only one). It dies with the
 * platform.
 */
export function bwrapArgs(
  f: BwrapFeatures,
  plan: MountPlan,
  fds: { info: number; block: number; userns?: number; seccomp?: number; args: number },
  argv: string[],
): string[] {
  const a: string[] = [];
  if (plan.user) a.push("--unshare-user", "--uid", String(plan.user.uid), "--gid", String(plan.user.gid));
  a.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (plan.network === "own") a.push("--unshare-net");
  a.push("--die-with-parent", "--cap-drop", "ALL", "--hostname", "mcp");
  if (plan.root) a.push(plan.rootWritable ? "--bind" : "--ro-bind", plan.root, "/");
  else {
    a.push(...systemBinds());
    for (const d of plan.hide) a.push("--tmpfs", d);
  }
  a.push(
    "--ro-bind",
    plan.etc.passwd,
    "/etc/passwd",
    "--ro-bind",
    plan.etc.group,
    "/etc/group",
    "--ro-bind",
    plan.etc.resolv,
    "/etc/resolv.conf",
  );
  a.push("--proc", "/proc", "--dev", "/dev");
  for (const m of plan.masks) a.push("--ro-bind", m.source, m.dest);
  for (const dir of ["/tmp", "/dev/shm"]) {
    a.push("--perms", "1777");
    if (f.tmpfsSize) a.push("--size", String(plan.tmpBytes));
    a.push("--tmpfs", dir);
  }
  for (const d of plan.readOnly) a.push("--ro-bind", d, d);
  for (const d of plan.writable) a.push("--bind", d, d);
  for (const b of plan.binds ?? []) a.push("--bind", b.source, b.dest);
  a.push("--info-fd", String(fds.info), "--block-fd", String(fds.block));
  if (fds.userns !== undefined) a.push("--userns-block-fd", String(fds.userns));
  if (fds.seccomp !== undefined) a.push("--seccomp", String(fds.seccomp));
  // The program's environment and working directory: read from a descriptor (descriptorArgs), never on the command line.
  a.push("--args", String(fds.args));
  a.push("--", ...argv);
  return a;
}

/** The longest environment a sandboxed program is given (the kernel's own limit for argv and environment together is about 2 MB). */
export const MAX_ENV_BYTES = 1024 * 1024;
/** A POSIX name: what `setenv` takes, with no `=` and no NUL. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class SandboxEnvError extends Error {}

/**
 * What bubblewrap reads from its `--args` descriptor (NUL-separated): `--clearenv`, then each
 * variable with `--setenv`, then `--chdir`. bubblewrap sets them in its own environment while it
 * parses its options, long after its loader ran (with PATH alone), and the program it then
 * executes inside the sandbox gets exactly `env`; `--chdir` is always given, so bubblewrap reads
 * no variable of the tenant's (HOME, PWD) for itself; no host process
 * ever has a tenant's variable in its environment or a secret in its argv (/proc/<pid>/cmdline is
 * readable by every uid). A NUL would end one argument and begin another (a `--bind / /host`
 * smuggled in a value), so names and values are refused with one, whoever checked them before.
 */
export function descriptorArgs(env: Readonly<Record<string, string>>, cwd: string): Buffer {
  const parts = ["--clearenv"];
  let bytes = 0;
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) throw new SandboxEnvError(`"${name.slice(0, 100)}" is not a valid environment variable name`);
    if (value.includes("\0")) throw new SandboxEnvError(`The environment variable ${name} holds a NUL character`);
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
    parts.push("--setenv", name, value);
  }
  if (bytes > MAX_ENV_BYTES) throw new SandboxEnvError(`The environment is larger than ${MAX_ENV_BYTES / 1024} KB`);
  if (cwd.includes("\0")) throw new SandboxEnvError("The working directory holds a NUL character");
  parts.push("--chdir", cwd);
  return Buffer.from(parts.join("\0") + "\0");
}

/** Written once, atomically (a sandbox starting meanwhile binds the old file or the new one), world-readable whatever the umask. */
export async function ensureFile(file: string, text: string): Promise<void> {
  if (existsSync(file)) return;
  const tmp = `${file}.${randomBytes(4).toString("hex")}`;
  await fs.writeFile(tmp, text);
  await fs.chmod(tmp, 0o644);
  await fs.rename(tmp, file);
}

/** Root-owned, world-readable /etc files for one identity (no host accounts, no host resolver). */
export async function sandboxEtc(etcDir: string, identity: Identity | null, egress: boolean): Promise<MountPlan["etc"]> {
  const uid = identity?.uid ?? process.getuid?.() ?? 0;
  const gid = identity?.gid ?? process.getgid?.() ?? 0;
  const dir = path.join(etcDir, String(uid));
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(dir, 0o711);
  const passwd = path.join(dir, "passwd");
  const group = path.join(dir, "group");
  const resolv = path.join(etcDir, egress ? "resolv-egress.conf" : "resolv-none.conf");
  await ensureFile(
    passwd,
    `root:x:0:0:root:/root:/usr/sbin/nologin\nmcp:x:${uid}:${gid}:MCP server:/tmp:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  );
  await ensureFile(group, `root:x:0:\nmcp:x:${gid}:\nnogroup:x:65534:\n`);
  await ensureFile(resolv, egress ? "nameserver 10.0.2.3\noptions edns0\n" : "");
  return { passwd, group, resolv };
}
