import { existsSync, readFileSync, statfsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "~support/app.js";
import { waitForStatus } from "~support/deployments.js";
import { ROOT, eventually, hostProcesses, logs, startHostileApp, type Hostile, type HostileApp } from "~support/hostile-server.js";
import { createTestHosts, hostConnect, type TestHosts } from "~support/netns.js";
import { diskLimitNotice } from "./index.js";
import { which } from "./probe.js";

// The hostile tenant (see hostile-server.int.test.ts) at the sandbox's edges: broadcast and
// multicast however the socket is set up, the machine-wide figures of /proc, and a volume that
// fills in ways the platform used to miss (inodes, a program that dies of it at once).

const MISSING = ["bwrap", "slirp4netns", "nsenter", "ip"].filter((b) => !which(b));
const SKIP = !ROOT ? "needs a root platform: own uids, cgroups and volumes" : MISSING.length ? `needs ${MISSING.join(", ")}` : null;

let t: TestApp;
let deployHostile: HostileApp["deployHostile"];
let deploymentPid: HostileApp["deploymentPid"];
let app: HostileApp | undefined;

beforeAll(async () => {
  if (SKIP) return;
  app = await startHostileApp();
  ({ t, deployHostile, deploymentPid } = app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

type Send = { host: string; port: number; options?: string[]; tcp?: boolean };
type Probe = { unavailable?: string; own: { name: string; address: string } | null; results: (Send & { result: string })[] };

async function udpProbe(h: Hostile, sends: Send[]): Promise<Probe> {
  const r = await h.call<Probe>("udp_probe", { sends });
  if (r.unavailable) throw new Error("python3 is needed to set socket options Node.js does not offer (SO_BINDTODEVICE, IP_PKTINFO)");
  return r;
}

/** Packets the sandbox's interface to slirp4netns sent, read from the host (its /proc/PID/net is the sandbox's namespace). */
function txPackets(pid: number, dev: string): number {
  const line = readFileSync(`/proc/${pid}/net/dev`, "utf8")
    .split("\n")
    .find((l) => l.trim().startsWith(`${dev}:`));
  if (!line) throw new Error(`no ${dev} in the sandbox's namespace`);
  return Number(line.split(":")[1]!.trim().split(/\s+/)[9]);
}

describe.skipIf(SKIP !== null)(`a hostile hosted server at the sandbox's edges${SKIP ? ` (skipped: ${SKIP})` : ""}`, () => {
  describe("broadcast and multicast", () => {
    let hosts: TestHosts | undefined;
    // Test hosts of this run only (other files and other Switchboards on this machine create theirs
    // at the same time): a public-looking control and a private one, both in a namespace of this
    // test on this machine.
    const n = 100 + Math.floor(Math.random() * 150);
    const PUBLIC = `198.51.100.${n}`;
    const PRIVATE = `10.213.${n}.2`;
    const DESTINATIONS = ["10.0.2.255", "255.255.255.255", "224.0.0.251", "239.1.2.3"];
    const OPTIONS = [
      [],
      ["broadcast"],
      ["bindtodevice"],
      ["broadcast", "bindtodevice"],
      ["multicast_if_addr"],
      ["multicast_if_index"],
      ["bind_source"],
      ["broadcast", "bind_source"],
      ["broadcast", "unicast_if"],
      ["broadcast", "pktinfo"],
      ["broadcast", "dontroute"],
      ["broadcast", "bindtodevice", "dontroute"],
    ];

    beforeAll(async () => {
      hosts = await createTestHosts([PUBLIC, PRIVATE], 7700 + n);
    }, 60_000);
    afterAll(async () => {
      await hosts?.close();
    });

    const serverPid = async (h: Hostile) =>
      hostProcesses(await deploymentPid(h.d.id)).find((p) => p.cmdline.startsWith(process.execPath) && p.cmdline.includes("server.js"))!
        .pid;

    it("refuses every broadcast and multicast datagram, whatever interface, address or option it is sent with, and none leaves", async () => {
      const h = await deployHostile(t);
      const pid = await serverPid(h);
      // The control: the probe sends, and the counter sees it, where sending is allowed.
      const control = await udpProbe(h, [
        { host: PUBLIC, port: 9 },
        { host: PUBLIC, port: 9, options: ["bindtodevice"] },
        { host: PUBLIC, port: hosts!.port, options: ["bindtodevice"], tcp: true },
      ]);
      expect(control.results.map((r) => r.result)).toEqual(["sent", "sent", "connected"]);
      const dev = control.own!.name;
      const before = txPackets(pid, dev);
      const probe = await udpProbe(
        h,
        DESTINATIONS.flatMap((host) => OPTIONS.map((options) => ({ host, port: 9, options }))),
      );
      for (const r of probe.results)
        expect([r.host, r.options, r.result]).toEqual([r.host, r.options, expect.stringMatching(/^(EPERM|EACCES|ENETUNREACH)$/)]);
      // The sends that went around the routes (they are looked up in no table) meet the kernel's policies.
      const result = (host: string, ...options: string[]) =>
        probe.results.find((r) => r.host === host && r.options!.join() === options.join())!.result;
      expect(result("10.0.2.255", "broadcast")).toBe("EPERM");
      expect(result("10.0.2.255", "broadcast", "bind_source")).toBe("EPERM");
      expect(result("255.255.255.255", "broadcast", "bindtodevice")).toBe("EPERM");
      expect(result("255.255.255.255", "broadcast", "pktinfo")).toBe("EPERM");
      expect(result("224.0.0.251", "multicast_if_addr")).toBe("EPERM");
      expect(result("239.1.2.3", "multicast_if_index")).toBe("EPERM");
      expect(result("239.1.2.3", "bind_source")).toBe("EPERM");
      // Nothing reached slirp4netns: the interface sent no packet at all meanwhile.
      expect(txPackets(pid, dev) - before).toBe(0);
      expect(txPackets(pid, dev)).toBeGreaterThan(0);
    }, 120_000);

    it("reaches no private address with a socket bound to its interface either (a refused route is not taken as 'on link')", async () => {
      const h = await deployHostile(t);
      expect(await hostConnect(PRIVATE, hosts!.port)).toBe("connected"); // the control, from the host
      const probe = await udpProbe(h, [
        { host: PRIVATE, port: hosts!.port, options: ["bindtodevice"], tcp: true },
        { host: PRIVATE, port: 9, options: ["bindtodevice"] },
        { host: PRIVATE, port: 9, options: ["unicast_if"] },
        { host: PRIVATE, port: 9, options: ["pktinfo"] },
        // slirp's gateway, the host's loopback: once with the routes' "don't route" flag too.
        { host: "10.0.2.2", port: 9, options: ["bindtodevice"] },
        { host: "10.0.2.2", port: 9, options: ["dontroute"] },
        { host: "10.0.2.2", port: 9, options: ["pktinfo"] },
      ]);
      for (const r of probe.results)
        expect([r.host, r.options, r.tcp ?? false, r.result]).toEqual([r.host, r.options, r.tcp ?? false, "EPERM"]);
    }, 120_000);
  });

  it("sees neutral figures, not the machine's, in /proc (load, CPU, memory, disks, pressure, open files), and Node.js and Python read them", async () => {
    const h = await deployHostile(t);
    const pressure = ["cpu", "io", "memory", "irq"].map((p) => `/proc/pressure/${p}`).filter((p) => existsSync(p));
    const files = ["/proc/loadavg", "/proc/stat", "/proc/meminfo", "/proc/diskstats", "/proc/sys/fs/file-nr", ...pressure];
    const v = await h.call<{
      texts: Record<string, string>;
      node: { loadavg: number[]; totalmem: number; freemem: number; cpus: number };
      python: Record<string, unknown> | null;
    }>("proc_view", { files });
    // The host's own view shows real activity (its processes, this test's volumes, its open files);
    // pressure may well be nil on a quiet machine, so it is only checked for its neutral content.
    for (const f of files.filter((f) => !f.startsWith("/proc/pressure/")))
      expect([f, v.texts[f]]).not.toEqual([f, readFileSync(f, "utf8")]);
    expect(v.texts["/proc/loadavg"]).toBe("0.00 0.00 0.00 1/1 1\n");
    expect(v.texts["/proc/diskstats"]).toBe("");
    expect(v.texts["/proc/sys/fs/file-nr"]).toMatch(/^0\t0\t\d+\n$/);
    // The memory it may use is the machine's memory; one CPU per core of its quota (0.5 here).
    expect(v.texts["/proc/meminfo"]).toMatch(new RegExp(`^MemTotal:\\s+${160 * 1024} kB$`, "m"));
    expect(v.texts["/proc/stat"]!.split("\n").filter((l) => /^cpu\d+ /.test(l))).toEqual(["cpu0 0 0 0 0 0 0 0 0 0 0"]);
    expect(v.texts["/proc/stat"]).toMatch(/^cpu {2}0 0 0 0 0 0 0 0 0 0$/m);
    for (const p of pressure) expect(v.texts[p]).toMatch(/^((some|full) avg10=0\.00 avg60=0\.00 avg300=0\.00 total=0\n)+$/);
    expect(v.node).toEqual({ loadavg: [0, 0, 0], totalmem: 160 * 1024 * 1024, freemem: 160 * 1024 * 1024, cpus: 1 });
    if (existsSync("/usr/bin/python3"))
      expect(v.python).toEqual({ loadavg: [0, 0, 0], getloadavg: 3, cpu_count: 1, mem_total_kb: 160 * 1024 });
    // Covered read-only: the tenant cannot put its own figures there for another program of its own either.
    const w = await h.call<Record<string, string>>("open_for_writing", { paths: files });
    for (const f of files) expect([f, w[f]]).not.toEqual([f, "writable"]);
  }, 120_000);

  describe("a full volume", () => {
    const notice = diskLimitNotice(64);
    const count = (text: string) => text.split(notice).length - 1;

    it("is told to the owner even when the program fills it and dies of it before the platform looks", async () => {
      const h = await deployHostile(t);
      await h.call("fill_and_exit", { dir: ".", mb: 200 }).catch(() => null);
      await waitForStatus(h.c, h.d.server_id, ["crashed", "crash_looping"], 30_000);
      expect(
        await eventually(
          () => logs(h),
          (l) => l.includes(notice),
        ),
      ).toContain(notice);
    }, 120_000);

    it("is told when its files run out rather than its space, and again each time it fills after it had room", async () => {
      const h = await deployHostile(t);
      const made = await h.call<{ folder: string; created: number; error: string }>("fill_inodes", { dir: "." });
      expect(made.error).toBe("ENOSPC");
      // Space is left: only the inodes are gone.
      const s = statfsSync(path.join(t.config.DATA_DIR, "deployments", h.d.id));
      expect(s.bavail * s.bsize).toBeGreaterThan(16 * 1024 * 1024);
      expect(s.ffree).toBe(0);
      expect(
        count(
          await eventually(
            () => logs(h),
            (l) => count(l) >= 1,
          ),
        ),
      ).toBe(1);
      await h.call("remove", { path: made.folder });
      // The watchdog looks once a second: it sees the room again before the next fill.
      await new Promise((r) => setTimeout(r, 2500));
      const filled = await h.call<{ error: string }>("fill", { dir: ".", mb: 200 });
      expect(filled.error).toBe("ENOSPC");
      expect(
        count(
          await eventually(
            () => logs(h),
            (l) => count(l) >= 2,
          ),
        ),
      ).toBe(2);
    }, 120_000);
  });
});
