import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "../../../../../tests/support/app.js";
import { registerOwnedServer, removeDataDir, waitForStatus } from "../../../../../tests/support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../../../../../tests/support/git-fixture.js";
import { canCreateTestHosts, createTestHosts, hostConnect, type TestHosts } from "../../../../../tests/support/netns.js";
import type { DeploymentView } from "../../../../shared/deployments.js";
import { diskLimitNotice, memoryLimitReason, processLimitNotice } from "./index.js";

// A hostile tenant: tests/fixtures/hostile-server (Node.js built-ins only), deployed through the
// API like any repository, tries every way out the threat model names (docs/hosting.md). Each
// test says what the tenant tries and checks, from outside where it can, that it failed.
// The full sandbox (an own uid per deployment, cgroups, volumes) needs a root platform, as on CI.

const ROOT = process.getuid?.() === 0;
const execFileP = promisify(execFile);
const LIMITS = { DEPLOY_MEMORY_MB: "160", DEPLOY_MAX_PROCESSES: "64", DEPLOY_DISK_MB: "64", DEPLOY_CPUS: "0.5" };

let t: TestApp;
let repo: FixtureRepo;
let users = 0;

interface Hostile {
  c: Client;
  d: DeploymentView;
  call<T = Record<string, unknown>>(tool: string, args?: Record<string, unknown>): Promise<T>;
}

async function deployHostile(app: TestApp, env: Record<string, string> = {}): Promise<Hostile> {
  const name = `eve${++users}`;
  const c = await signedInUser(app, `${name}@example.com`);
  await registerOwnedServer(c, `${name}/hostile`, "Hostile");
  const r = await c.post(`/api/deploy/${name}/hostile`, { repositoryUrl: repo.url, env });
  expect(r.status, await r.clone().text()).toBe(202);
  const d = await waitForStatus(c, `${name}/hostile`, "running", 60_000);
  const call = async <T,>(tool: string, args: Record<string, unknown> = {}) => {
    const res = (await app.runtime.runner.client(d.id)!.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as { content: { text: string }[] };
    return JSON.parse(res.content[0]!.text) as T;
  };
  return { c, d, call };
}

const logs = async (h: Hostile) => ((await (await h.c.get(`/api/deployments/${h.d.id}/logs`)).json()) as { lines: string[] }).lines.join("\n");

async function eventually<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The host's view of the processes running a deployment (below bwrap, through every thread's children). */
function hostProcesses(pid: number): { pid: number; uid: number; cmdline: string }[] {
  const out: { pid: number; uid: number; cmdline: string }[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      out.push({ pid: p, uid: Number(/^Uid:\s+(\d+)/m.exec(status)![1]), cmdline: readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ") });
      for (const tid of readdirSync(`/proc/${p}/task`)) stack.push(...readFileSync(`/proc/${p}/task/${tid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number));
    } catch {
      // gone
    }
  }
  return out;
}

async function deploymentPid(id: string): Promise<number> {
  return ((await t.db.database.pool.query("select pid from deployments where id = $1", [id])).rows[0] as { pid: number }).pid;
}

beforeAll(async () => {
  if (!ROOT) return;
  t = await createTestApp({ GIT_ALLOW_FILE: "on", DEPLOY_START_TIMEOUT_MS: "20000", RESTART_BACKOFF_MS: "600000", ...LIMITS });
  repo = await createFixtureRepo({ fixture: "hostile-server", executables: ["server.js"] });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
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
    const me = await a.call<{ uid: number; uidMap: string; capEff: string; capBnd: string; noNewPrivs: string; seccomp: string; coreLimit: string[]; inheritedAtStart: unknown[] }>("whoami");
    const other = await b.call<{ uid: number }>("whoami");
    expect(me.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(other.uid).toBeGreaterThan(Number(t.config.SANDBOX_UID_BASE));
    expect(other.uid).not.toBe(me.uid);
    expect(me.uidMap).toMatch(new RegExp(`^\\s*0\\s+\\d+\\s+1\\s*\\n\\s*${me.uid}\\s+${me.uid}\\s+1$`));
    expect(me.uidMap).not.toMatch(/^\s*0\s+0\s/m);
    expect(me).toMatchObject({ capEff: "0000000000000000", capBnd: "0000000000000000", noNewPrivs: "1", seccomp: "2", coreLimit: ["0", "0"], inheritedAtStart: [] });
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
    const denied = ["modify_ldt", "mount", "umount2", "unshare_user", "unshare_net", "setns", "keyctl", "add_key", "bpf", "perf_event_open", "userfaultfd", "kexec_load", "init_module", "finit_module", "ptrace_attach_1", "process_vm_readv", "io_uring_setup", "open_by_handle_at", "swapon", "reboot", "clone_newuser"];
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

  describe("network", () => {
    let hosts: TestHosts | undefined;
    let listener: net.Server;
    let port: number;
    const PRIVATE = ["10.213.7.2", "172.29.7.2", "192.168.213.2", "100.64.213.2", "169.254.213.2"];
    // TEST-NET-2: a public-looking address, routed to the test host like the others.
    const PUBLIC = "198.51.100.7";

    beforeAll(async () => {
      const why = await canCreateTestHosts();
      if (why) throw new Error(why);
      hosts = await createTestHosts([...PRIVATE, PUBLIC]);
      // A service of the host bound to every address, as the app itself is (HOST=0.0.0.0).
      listener = net
        .createServer((s) => {
          s.on("error", () => {}); // a client that connects and leaves at once resets it
          s.end("host");
        })
        .listen(0, "::");
      await new Promise((r) => listener.once("listening", r));
      port = (listener.address() as net.AddressInfo).port;
    }, 60_000);
    afterAll(async () => {
      await hosts?.close();
      listener?.close();
    });

    it("reaches public addresses but not the host's own, loopback, private, CGNAT, link-local or multicast ones; DNS works", async () => {
      const h = await deployHostile(t);
      const own = Object.values(os.networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal && !a.address.startsWith("fe80"))
        .map((a) => a!.address);
      expect(own.length).toBeGreaterThan(0);
      for (const a of own) {
        expect([a, await hostConnect(a, port)]).toEqual([a, "connected"]); // the control, from the host
        expect([a, await h.call("connect", { host: a, port })]).not.toEqual([a, "connected"]);
      }
      const v4 = own.find((a) => net.isIPv4(a))!;
      expect(await h.call("connect", { host: v4, port })).toBe("EACCES");
      // Loopback is the sandbox's own; the host's loopback behind slirp's gateway is refused.
      expect(await h.call("connect", { host: "127.0.0.1", port })).not.toBe("connected");
      expect(await h.call("connect", { host: "10.0.2.2", port })).toBe("EACCES");
      for (const a of PRIVATE) {
        expect([a, await hostConnect(a, hosts!.port)]).toEqual([a, "connected"]);
        expect([a, await h.call("connect", { host: a, port: hosts!.port })]).toEqual([a, "EACCES"]);
      }
      expect(await h.call("connect", { host: PUBLIC, port: hosts!.port })).toBe("connected");
      expect(await h.call("udp_send", { host: "239.1.2.3", port: 5353 })).toBe("EACCES");
      expect(await h.call("udp_send", { host: "255.255.255.255", port: 67 })).not.toBe("sent");
      const who = await h.call<{ resolvConf: string; uid: number }>("whoami");
      expect(who.resolvConf).toContain("nameserver 10.0.2.3");
      // Its network stack runs as its uid too, in an empty root: a flaw in it reaches no host file.
      const slirps = readdirSync("/proc")
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("slirp4netns") && Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, "utf8"))![1]) === who.uid;
          } catch {
            return false;
          }
        });
      expect(slirps).toHaveLength(1);
      expect(readdirSync(`/proc/${slirps[0]}/root`)).not.toContain("usr");
      // slirp forwards every port of its resolver address to the host's resolver (libslirp < 4.8):
      // only DNS may go there. Asked of the sandbox's routing from outside first (no packet is sent),
      // then tried from inside, where a refusal stays on this machine.
      const inner = hostProcesses(await deploymentPid(h.d.id)).find((p) => p.cmdline.startsWith(process.execPath) && p.cmdline.includes("server.js"))!.pid;
      const route = (q: string) => execFileP("nsenter", [`--target=${inner}`, "--net", "ip", "route", "get", "10.0.2.3", ...q.split(" ")]).then((r) => r.stdout, (e: { stderr: string }) => e.stderr);
      expect(await route("ipproto udp dport 53")).toContain("dev tap0");
      expect(await route("ipproto tcp dport 53")).toContain("dev tap0");
      for (const q of ["ipproto tcp dport 80", "ipproto tcp dport 5432", "ipproto udp dport 5353", "ipproto icmp"]) expect([q, await route(q)]).toEqual([q, expect.stringContaining("Permission denied")]);
      expect(await h.call("connect", { host: "10.0.2.3", port: 80 })).toBe("EACCES");
      expect(await h.call("udp_send", { host: "10.0.2.3", port: 5353 })).toBe("EACCES");
      // The same name lookup every sandboxed npm install makes: through slirp's resolver, to the host's.
      const registry = new URL(process.env.npm_config_registry ?? "https://registry.npmjs.org").hostname;
      expect(await h.call("dns", { name: registry })).toMatchObject({ addresses: expect.arrayContaining([expect.any(String)]) });
    }, 120_000);

    it("SANDBOX_EGRESS_ALLOW opens exactly the private destinations an operator names", async () => {
      const opened = await createTestApp({ GIT_ALLOW_FILE: "on", SANDBOX_EGRESS_ALLOW: `${PRIVATE[0]}, 192.168.213.0/24` });
      try {
        const h = await deployHostile(opened);
        expect(await h.call("connect", { host: PRIVATE[0], port: hosts!.port })).toBe("connected");
        expect(await h.call("connect", { host: "192.168.213.2", port: hosts!.port })).toBe("connected");
        expect(await h.call("connect", { host: "172.29.7.2", port: hosts!.port })).toBe("EACCES");
        const v4 = Object.values(os.networkInterfaces()).flat().find((a) => a && !a.internal && a.family === "IPv4")!.address;
        expect(await h.call("connect", { host: v4, port })).toBe("EACCES");
      } finally {
        await opened.close();
      }
    }, 120_000);
  });

  describe("resources", () => {
    it("holds at most DEPLOY_MAX_PROCESSES processes and says so in its output", async () => {
      const h = await deployHostile(t);
      const r = await h.call<{ started: number; failed: number; firstError: string }>("fork_many", { n: 100 });
      expect(r.started).toBeLessThan(64);
      expect(r.failed).toBeGreaterThan(0);
      expect(r.firstError).toBe("EAGAIN");
      expect(await eventually(() => logs(h), (l) => l.includes(processLimitNotice(64)))).toContain(processLimitNotice(64));
      await h.call("release");
    }, 120_000);

    it("is stopped at the memory limit even when the memory is held by a process a worker thread started", async () => {
      const h = await deployHostile(t);
      await h.call("alloc_in_worker", { mb: 600 });
      const stopped = await waitForStatus(h.c, h.d.server_id, ["crashed", "crash_looping"], 30_000);
      expect(stopped.status_detail).toMatch(new RegExp(`^${memoryLimitReason(160)}`));
      // The platform is unharmed and answers.
      expect((await h.c.get("/api/deployments")).status).toBe(200);
    }, 120_000);

    it("cannot hold memory in its private /tmp beyond the limit", async () => {
      const h = await deployHostile(t);
      const filled = h.call<{ writtenMb: number; error: string | null }>("fill", { dir: "/tmp", mb: 600 }).catch(() => null);
      const stopped = await waitForStatus(h.c, h.d.server_id, ["crashed", "crash_looping"], 60_000);
      expect(stopped.status_detail).toMatch(new RegExp(`^${memoryLimitReason(160)}`));
      const r = await filled;
      if (r) expect(r.writtenMb).toBeLessThanOrEqual(160);
    }, 120_000);

    it("cannot write more than DEPLOY_DISK_MB into its directory, and the owner is told", async () => {
      const h = await deployHostile(t);
      const r = await h.call<{ writtenMb: number; error: string }>("fill", { dir: ".", mb: 200 });
      expect(r.error).toBe("ENOSPC");
      expect(r.writtenMb).toBeLessThan(64);
      expect(await eventually(() => logs(h), (l) => l.includes(diskLimitNotice(64)))).toContain(diskLimitNotice(64));
      // On the host the volume's image holds no more than the limit.
      const img = statSync(path.join(t.config.DATA_DIR, "deployments", ".volumes", `${h.d.id}.img`));
      expect(img.blocks * 512).toBeLessThanOrEqual(64 * 1024 * 1024);
    }, 120_000);

    it("gets at most DEPLOY_CPUS cores however many threads it runs", async () => {
      const h = await deployHostile(t);
      const r = await h.call<{ wallMs: number; cpuMs: number }>("cpu_burn", { ms: 2000, threads: 2 });
      // 0.5 core over about 2 s is about 1 s of CPU; unlimited, two threads would take up to 4 s.
      expect(r.cpuMs).toBeLessThan(0.5 * r.wallMs + 400);
    }, 120_000);
  });
});
