import { readdirSync, readFileSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "~support/app.js";
import { removeDataDir, waitForStatus } from "~support/deployments.js";
import { ROOT, hostProcesses, startHostileApp, type HostileApp } from "~support/hostile-server.js";

// A hostile tenant: tests/fixtures/hostile-server (Node.js built-ins only), deployed through the
// API like any repository, tries every way out the threat model names (docs/hosting.md). Each
// test says what the tenant tries and checks, from outside where it can, that it failed.
// The full sandbox (an own uid per deployment, cgroups, volumes) needs a root platform, as on CI.
// This file: privileges, the kernel's interfaces, system calls and files. The network:
// hostile-server-network.int.test.ts; resource limits: hostile-server-resources.int.test.ts.

let t: TestApp;
let deployHostile: HostileApp["deployHostile"];
let deploymentPid: HostileApp["deploymentPid"];
let app: HostileApp | undefined;

beforeAll(async () => {
  if (!ROOT) return;
  app = await startHostileApp();
  ({ t, deployHostile, deploymentPid } = app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe.skipIf(!ROOT)("a hostile hosted server (needs a root platform: own uids, cgroups and volumes)", () => {
  it("finds every guarantee of the sandbox in force on this machine", () => {
    const info = t.runtime.runner.sandbox;
    expect(info.guarantees.filter((g) => !g.ok)).toEqual([]);
    expect(info.complete).toBe(true);
  });

  it("runs as an unprivileged uid of its own (inside and on the host), with no capabilities, no new privileges, seccomp, no core dumps and nothing inherited", async () => {
    const a = await deployHostile(t);
    const b = await deployHostile(t);
    const me = await a.call<{
      uid: number;
      uidMap: string;
      capEff: string;
      capBnd: string;
      noNewPrivs: string;
      seccomp: string;
      coreLimit: string[];
      inheritedAtStart: unknown[];
    }>("whoami");
    const other = await b.call<{ uid: number }>("whoami");
    expect(me.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(other.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(other.uid).not.toBe(me.uid);
    expect(me.uidMap).toMatch(new RegExp(`^\\s*0\\s+\\d+\\s+1\\s*\\n\\s*${me.uid}\\s+${me.uid}\\s+1$`));
    expect(me.uidMap).not.toMatch(/^\s*0\s+0\s/m);
    expect(me).toMatchObject({
      capEff: "0000000000000000",
      capBnd: "0000000000000000",
      noNewPrivs: "1",
      seccomp: "2",
      coreLimit: ["0", "0"],
      inheritedAtStart: [],
    });
    // The host sees the same: no process of the deployment is root.
    const procs = hostProcesses(await deploymentPid(a.d.id));
    expect(procs.some((p) => p.cmdline.includes("server.js"))).toBe(true);
    expect(procs.filter((p) => p.uid === 0)).toEqual([]);
  }, 120_000);

  it("cannot open the kernel's writable interfaces: /proc/sys (core_pattern, drop_caches, pid_max, ...), sysrq, /sys, the system's files", async () => {
    const h = await deployHostile(t);
    const corePattern = readFileSync("/proc/sys/kernel/core_pattern", "utf8");
    const targets = [
      "/proc/sys/kernel/core_pattern",
      "/proc/sys/vm/drop_caches",
      "/proc/sys/kernel/pid_max",
      "/proc/sys/kernel/modprobe",
      "/proc/sys/user/max_user_namespaces",
      "/proc/sys/net/ipv4/ip_forward",
      "/proc/sysrq-trigger",
      "/sys/kernel/uevent_helper",
      "/sys/fs/cgroup/cgroup.procs",
      "/etc/passwd",
      "/usr/bin/env",
      process.execPath,
    ];
    const result = await h.call<Record<string, string>>("open_for_writing", { paths: targets });
    for (const p of targets) expect([p, result[p]]).not.toEqual([p, "writable"]);
    // A crash of the server dumps no core and runs no handler: the host's core_pattern is untouched.
    await h.call("abort");
    const crashed = await waitForStatus(h.c, h.d.server_id, ["crashed", "crash_looping"], 30_000);
    expect(crashed.status_detail).toContain("SIGABRT");
    expect(readFileSync("/proc/sys/kernel/core_pattern", "utf8")).toBe(corePattern);
    expect(readdirSync(path.join(t.config.DATA_DIR, "deployments", h.d.id)).filter((f) => f.startsWith("core"))).toEqual([]);
  }, 120_000);

  it("is refused the system calls a server has no business with, and any new namespace", async () => {
    const h = await deployHostile(t);
    const r = await h.call<Record<string, string>>("syscalls");
    if ("unavailable" in r) throw new Error("python3 is needed to make raw system calls from the fixture");
    const denied = [
      "modify_ldt",
      "mount",
      "umount2",
      "unshare_user",
      "unshare_net",
      "setns",
      "keyctl",
      "add_key",
      "bpf",
      "perf_event_open",
      "userfaultfd",
      "kexec_load",
      "init_module",
      "finit_module",
      "ptrace_attach_1",
      "process_vm_readv",
      "io_uring_setup",
      "open_by_handle_at",
      "swapon",
      "reboot",
      "clone_newuser",
    ];
    for (const name of denied) expect([name, r[name]]).toEqual([name, "Operation not permitted"]);
    expect(r.clone3).toBe("Function not implemented");
    expect(r.vsock).toBe("Address family not supported by protocol");
    // Protocols the kernel would load a module for are refused; TCP is not.
    expect([r.sctp, r.dccp]).toEqual(["Protocol not supported", "Protocol not supported"]);
    expect(r.tcp).toBe("ok");
    expect(r.getpid).toBe("ok");
    const unshare = await h.call<{ status: number | null }>("run", { argv: ["unshare", "--user", "--map-root-user", "id"] });
    expect(unshare.status).not.toBe(0);
  }, 120_000);

  it("leaves no setuid-root binary on the host: its files are its own uid's, on a nosuid volume", async () => {
    const h = await deployHostile(t);
    const me = await h.call<{ uid: number }>("whoami");
    const made = await h.call<{ file: string; mode: string }>("make_setuid");
    expect(made.mode).toBe("4755");
    const st = statSync(made.file);
    expect(st.uid).toBe(me.uid);
    expect(st.uid).not.toBe(0);
    const dir = path.join(t.config.DATA_DIR, "deployments", h.d.id);
    const mount = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .find((l) => l.split(" ")[4] === dir);
    expect(mount).toMatch(/\bnosuid\b/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  }, 120_000);

  it("cannot see a platform installed under /usr (as in many container images): its data is covered", async () => {
    const dir = await fs.mkdtemp("/usr/local/switchboard-under-usr-");
    const underUsr = await createTestApp({ GIT_ALLOW_FILE: "on", DATA_DIR: dir, PACKAGES_DIR: path.join(dir, "packages") });
    try {
      const h = await deployHostile(underUsr);
      expect(readFileSync(path.join(dir, "secrets-key"), "utf8").length).toBeGreaterThan(0);
      expect(await h.call("read_file", { path: path.join(dir, "secrets-key") })).toEqual({ error: "ENOENT" });
      // Its own directory, inside the covered folder, is still there for it.
      expect(await h.call("fill", { dir: ".", mb: 1 })).toMatchObject({ writtenMb: 1, error: null });
    } finally {
      await underUsr.close();
      await removeDataDir(dir);
    }
  }, 120_000);
});
