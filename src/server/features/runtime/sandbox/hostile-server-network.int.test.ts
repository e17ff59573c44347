import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "~support/app.js";
import { descendsFrom } from "~support/cluster.js";
import { ROOT, hostProcesses, startHostileApp, type HostileApp } from "~support/hostile-server.js";
import { canCreateTestHosts, createTestHosts, hostConnect, type TestHosts } from "~support/netns.js";

// The hostile tenant (see hostile-server.int.test.ts) tries to reach what its network must not.

const execFileP = promisify(execFile);

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
            // Only this test's: another Switchboard on the machine may run sandboxes under the same uids.
            return (
              readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("slirp4netns") &&
              Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, "utf8"))![1]) === who.uid &&
              descendsFrom(Number(p), process.pid)
            );
          } catch {
            return false;
          }
        });
      expect(slirps).toHaveLength(1);
      expect(readdirSync(`/proc/${slirps[0]}/root`)).not.toContain("usr");
      // slirp forwards every port of its resolver address to the host's resolver (libslirp < 4.8):
      // only DNS may go there. Asked of the sandbox's routing from outside first (no packet is sent),
      // then tried from inside, where a refusal stays on this machine.
      const inner = hostProcesses(await deploymentPid(h.d.id)).find(
        (p) => p.cmdline.startsWith(process.execPath) && p.cmdline.includes("server.js"),
      )!.pid;
      const route = (q: string) =>
        execFileP("nsenter", [`--target=${inner}`, "--net", "ip", "route", "get", "10.0.2.3", ...q.split(" ")]).then(
          (r) => r.stdout,
          (e: { stderr: string }) => e.stderr,
        );
      expect(await route("ipproto udp dport 53")).toContain("dev tap0");
      expect(await route("ipproto tcp dport 53")).toContain("dev tap0");
      for (const q of ["ipproto tcp dport 80", "ipproto tcp dport 5432", "ipproto udp dport 5353", "ipproto icmp"])
        expect([q, await route(q)]).toEqual([q, expect.stringContaining("Permission denied")]);
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
        const v4 = Object.values(os.networkInterfaces())
          .flat()
          .find((a) => a && !a.internal && a.family === "IPv4")!.address;
        expect(await h.call("connect", { host: v4, port })).toBe("EACCES");
      } finally {
        await opened.close();
      }
    }, 120_000);
  });
});
