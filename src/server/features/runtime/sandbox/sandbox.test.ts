import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "~/server/config.js";
import { bwrapArgs, descriptorArgs, MAX_ENV_BYTES, SandboxEnvError, type MountPlan } from "./bwrap.js";
import { networkOf, parseAllowList } from "./cidr.js";
import { DENIED_V4, egressPolicies, egressRoutes, hostRoutes, NEVER_V4 } from "./egress-rules.js";
import { volumeState } from "./launched.js";
import { procMaskTexts } from "./proc-masks.js";
import { UidPool } from "./identity.js";
import { readTenantFile, readTenantJson, tenantPathKind } from "./tenant-files.js";

describe("egress routes", () => {
  const host = [
    { address: "127.0.0.1", cidr: "127.0.0.1/8", internal: true },
    { address: "192.0.2.2", cidr: "192.0.2.2/24", internal: false },
    { address: "203.0.113.9", cidr: "203.0.113.9/28", internal: false },
    { address: "fd00::2", cidr: "fd00::2/64", internal: false },
    { address: "fe80::1%eth0", cidr: "fe80::1/64", internal: false },
  ];

  it("prohibits loopback, private, CGNAT, link-local, multicast and reserved ranges, slirp's gateway, the host's addresses and its networks", () => {
    const lines = egressRoutes({ host, allow: [], ipv6: true });
    for (const r of [
      "10.0.0.0/8",
      "172.16.0.0/12",
      "192.168.0.0/16",
      "100.64.0.0/10",
      "169.254.0.0/16",
      "127.0.0.0/8",
      "224.0.0.0/4",
      "240.0.0.0/4",
      "0.0.0.0/8",
      "10.0.2.2/32",
      "168.63.129.16/32",
    ]) {
      expect(lines).toContain(`route replace prohibit ${r}`);
    }
    // A public host address and the public network it sits on are refused too.
    expect(lines).toContain("route replace prohibit 203.0.113.9/32");
    expect(lines).toContain("route replace prohibit 203.0.113.0/28");
    expect(lines).toContain("route replace prohibit 192.0.2.2/32");
    expect(lines).toContain("route replace prohibit 192.0.2.0/24");
    expect(lines).toContain("route replace prohibit fd00:0:0:0:0:0:0:2/128");
    expect(lines).toContain("route replace prohibit fc00:0:0:0:0:0:0:0/7");
    // Every line is an `ip route` or `ip rule` command over an address or network: nothing else can reach the batch.
    for (const l of lines)
      expect(l).toMatch(
        /^(route replace (prohibit )?[0-9a-f.:]+\/\d+( via 10\.0\.2\.2 dev tap0)?|rule add priority 10[0-2] to 10\.0\.2\.3\/32 (ipproto (udp|tcp) dport 53 lookup main|prohibit))$/,
      );
    expect(new Set(lines).size).toBe(lines.length);
  });

  it("lets only DNS reach slirp's resolver address (older libslirp forwards every port of it to the host's resolver)", () => {
    const lines = egressRoutes({ host: [], allow: [], ipv6: false });
    expect(lines.slice(-3)).toEqual([
      "rule add priority 100 to 10.0.2.3/32 ipproto udp dport 53 lookup main",
      "rule add priority 101 to 10.0.2.3/32 ipproto tcp dport 53 lookup main",
      "rule add priority 102 to 10.0.2.3/32 prohibit",
    ]);
  });

  it("prohibits the networks the host routes to besides its default route, but never slirp's own network", () => {
    const lines = egressRoutes({
      host: [{ address: "10.0.2.15", cidr: "10.0.2.15/24", internal: false }],
      routes: ["203.0.113.0/24", "10.0.2.0/24", "2001:db8:5::/48"],
      allow: [],
      ipv6: true,
    });
    expect(lines).toContain("route replace prohibit 203.0.113.0/24");
    expect(lines).toContain("route replace prohibit 2001:db8:5:0:0:0:0:0/48");
    expect(lines).toContain("route replace prohibit 10.0.2.2/32");
    expect(lines.some((l) => / 10\.0\.2\.(0\/24|15\/32)$/.test(l))).toBe(false);
    expect(hostRoutes().every((r) => /\/\d+$/.test(r) && !r.endsWith("/0"))).toBe(true);
  });

  it("leaves IPv6 ranges out where the kernel has no IPv6, and adds the operator's exceptions last", () => {
    const lines = egressRoutes({ host, allow: ["10.1.2.0/24"], ipv6: false });
    expect(lines.some((l) => l.includes(":"))).toBe(false);
    expect(lines.at(-1)).toBe("route replace 10.1.2.0/24 via 10.0.2.2 dev tap0");
    expect(DENIED_V4.every((r) => lines.includes(`route replace prohibit ${r}`))).toBe(true);
  });

  it("refuses the same destinations with xfrm policies, which hold whatever route a socket option picks; broadcast and multicast whatever the operator opens", () => {
    const lines = egressPolicies({ host, allow: ["10.1.2.0/24", "203.0.113.9/32", "224.0.0.0/4", "10.0.0.0/8"], ipv6: true });
    const priority = (sel: string) =>
      Number(
        new RegExp(`^xfrm policy add dst ${sel.replace(/\./g, "\\.")} dir out action \\w+ priority (\\d+)$`, "m").exec(
          lines.join("\n"),
        )?.[1],
      );
    const action = (sel: string) =>
      lines
        .find((l) => l.startsWith(`xfrm policy add dst ${sel} dir`))
        ?.split(" action ")[1]
        ?.split(" ")[0];
    expect(lines.slice(0, 2)).toEqual([
      "xfrm policy add dst 10.0.2.3/32 proto udp dport 53 dir out action allow priority 0",
      "xfrm policy add dst 10.0.2.3/32 proto tcp dport 53 dir out action allow priority 0",
    ]);
    for (const r of [...NEVER_V4, "10.0.2.2/32", "10.0.2.3/32"])
      expect(lines).toContain(`xfrm policy add dst ${r} dir out action block priority 1`);
    expect(lines).toContain("xfrm policy add dst ff00:0:0:0:0:0:0:0/8 dir out action block priority 1");
    // The operator's multicast exception does not open multicast.
    expect(lines.filter((l) => l.includes(" 224.0.0.0/4 "))).toEqual(["xfrm policy add dst 224.0.0.0/4 dir out action block priority 1"]);
    // An exception as wide as 10.0.0.0/8 opens that network, never slirp's gateway or resolver (but for DNS).
    expect(action("10.0.0.0/8")).toBe("allow");
    for (const r of ["172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "10.0.2.2/32", "192.0.2.2/32", "fc00:0:0:0:0:0:0:0/7"])
      expect([r, action(r)]).toEqual([r, "block"]);
    // The most specific wins; at the same prefix the operator's exception does (as `route replace`).
    expect(action("10.1.2.0/24")).toBe("allow");
    expect(priority("10.1.2.0/24")).toBeLessThan(priority("10.0.0.0/8"));
    expect(action("203.0.113.9/32")).toBe("allow");
    expect(priority("203.0.113.0/28")).toBeGreaterThan(priority("203.0.113.9/32"));
    // Loopback is the sandbox's own (IPv6's loopback would be refused by a policy).
    expect(lines.some((l) => / dst (127\.|0:0:0:0:0:0:0:1\/)/.test(l))).toBe(false);
    for (const l of lines)
      expect(l).toMatch(/^xfrm policy add dst [0-9a-f.:]+\/\d+( proto (udp|tcp) dport 53)? dir out action (allow|block) priority \d+$/);
    expect(new Set(lines.map((l) => l.split(" dir ")[0])).size).toBe(lines.length);
    expect(egressPolicies({ host, allow: [], ipv6: false }).some((l) => l.includes(":"))).toBe(false);
  });

  it("computes networks and parses SANDBOX_EGRESS_ALLOW strictly", () => {
    expect(networkOf("192.0.2.77", 24)).toBe("192.0.2.0/24");
    expect(networkOf("10.9.8.7", 32)).toBe("10.9.8.7/32");
    expect(networkOf("fd12:3456::99", 64)).toBe("fd12:3456:0:0:0:0:0:0/64");
    expect(parseAllowList(" 10.1.2.3 , 192.168.5.7/24")).toEqual(["10.1.2.3/32", "192.168.5.0/24"]);
    expect(parseAllowList("")).toEqual([]);
    for (const bad of ["10.1.2.3/33", "10.1.2.300", "fd00::1", "10.0.0.0/8; ip link del tap0", "10.0.0.0/+8", "example.com"])
      expect(() => parseAllowList(bad)).toThrow();
    expect(() => loadConfig({ SANDBOX_EGRESS_ALLOW: "10.0.0.0/8 dev lo" })).toThrow(/SANDBOX_EGRESS_ALLOW/);
  });
});

describe("reading a tenant's files on the host", () => {
  let root: string;
  let secret: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), "tenant-files-"));
    secret = path.join(root, "..", `${path.basename(root)}-secret`);
    await fs.writeFile(secret, "TOP-SECRET-VALUE");
    await fs.mkdir(path.join(root, "app", "lib"), { recursive: true });
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
    await fs.rm(secret, { force: true });
  });

  it("reads a regular file and says when there is none", async () => {
    await fs.writeFile(path.join(root, "app", "package.json"), '{"name":"x"}');
    expect(await readTenantJson(path.join(root, "app"), "package.json")).toEqual({ name: "x" });
    expect(await readTenantFile(path.join(root, "app"), "server.json")).toBeNull();
  });

  it("refuses a link at the end or anywhere on the way, without saying what it points at", async () => {
    await fs.symlink(secret, path.join(root, "app", "package.json"));
    await fs.symlink(path.dirname(secret), path.join(root, "app", "up"));
    for (const rel of ["package.json", `up/${path.basename(secret)}`]) {
      const err = await readTenantFile(path.join(root, "app"), rel).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toMatch(/symbolic link/);
      expect((err as Error).message).not.toContain("TOP-SECRET");
    }
    expect(await tenantPathKind(path.join(root, "app"), "up/anything")).toBe("link");
  });

  it("refuses paths outside the root, FIFOs (without blocking) and oversized files", async () => {
    await expect(readTenantFile(path.join(root, "app"), "../x")).rejects.toThrow(/outside/);
    execFileSync("mkfifo", [path.join(root, "app", "fifo")]);
    await expect(readTenantFile(path.join(root, "app"), "fifo")).rejects.toThrow(/not a regular file/);
    await fs.writeFile(path.join(root, "app", "big"), Buffer.alloc(2048, 65));
    await expect(readTenantFile(path.join(root, "app"), "big", 1024)).rejects.toThrow(/larger than/);
  });

  it("says which file is not JSON, never what it holds", async () => {
    await fs.writeFile(path.join(root, "app", "package.json"), "TOP-SECRET-VALUE not json");
    const err = (await readTenantJson(path.join(root, "app"), "package.json").catch((e: Error) => e)) as Error;
    expect(err.message).toBe("package.json is not valid JSON");
  });
});

describe("sandbox uids", () => {
  it("gives each deployment a uid of its own above the base, keeps it across restarts, and reuses released ones", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "uids-"));
    try {
      const file = path.join(dir, "uids.json");
      const pool = new UidPool(file, 1_000_000);
      expect(pool.installer()).toEqual({ uid: 1_000_000, gid: 1_000_000 });
      expect(pool.setupUid()).toBe(1_000_000 + 65535);
      const [a, b] = await Promise.all([pool.forDeployment("a"), pool.forDeployment("b")]);
      expect(a!.uid).not.toBe(b!.uid);
      expect([a!.uid, b!.uid].every((u) => u > 1_000_000 && u < 1_000_000 + 65535)).toBe(true);
      expect(await new UidPool(file, 1_000_000).forDeployment("a")).toEqual(a);
      await pool.release("a");
      expect((await pool.forDeployment("c"))!.uid).toBe(a!.uid);
      expect(await new UidPool(file, null).forDeployment("x")).toBeNull();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a volume's fullness", () => {
  const mb = 1024 * 1024;
  const vol = (freeMb: number, ffree = 5000) => ({
    bavail: (freeMb * mb) / 4096,
    blocks: (1024 * mb) / 4096,
    bsize: 4096,
    ffree,
    files: 131072,
  });

  it("is full when space or inodes run out, and has room again only well below the limit", () => {
    expect(volumeState(vol(0.4))).toBe("full");
    expect(volumeState(vol(500, 0))).toBe("full");
    expect(volumeState(vol(15))).toBe("between");
    expect(volumeState(vol(500, 2000))).toBe("between");
    expect(volumeState(vol(500))).toBe("room");
  });
});

describe("the masked /proc files", () => {
  const texts = procMaskTexts(
    { memoryMb: 512, maxProcesses: 64, cpus: 1.5 },
    { btime: 1700000000, fileMax: "9223372036854775807", cpus: 8 },
  );

  it("keep the kernel's format with neutral figures: nothing running or used, the memory limit, a CPU per core of the quota", () => {
    expect(texts["/proc/loadavg"]).toBe("0.00 0.00 0.00 1/1 1\n");
    expect(texts["/proc/stat"]!.split("\n").filter((l) => l.startsWith("cpu"))).toEqual([
      "cpu  0 0 0 0 0 0 0 0 0 0",
      "cpu0 0 0 0 0 0 0 0 0 0 0",
      "cpu1 0 0 0 0 0 0 0 0 0 0",
    ]);
    expect(texts["/proc/stat"]).toContain("\nbtime 1700000000\n");
    expect(texts["/proc/meminfo"]).toMatch(/^MemTotal:\s+524288 kB\nMemFree:\s+524288 kB\nMemAvailable:\s+524288 kB\n/);
    expect(texts["/proc/diskstats"]).toBe("");
    expect(texts["/proc/sys/fs/file-nr"]).toBe("0\t0\t9223372036854775807\n");
    expect(texts["/proc/pressure/irq"]).toBe("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
    expect(procMaskTexts({ memoryMb: 512, maxProcesses: 64, cpus: 0 }, { btime: 1, fileMax: "1", cpus: 3 })["/proc/stat"]).toContain(
      "cpu2 ",
    );
  });
});

describe("the bubblewrap command", () => {
  const plan: MountPlan = {
    cwd: "/data/deployments/d1",
    writable: ["/data/deployments/d1"],
    readOnly: ["/data/packages/p@1"],
    etc: { passwd: "/e/passwd", group: "/e/group", resolv: "/e/resolv" },
    hide: ["/usr/src/app"],
    masks: [{ source: "/e/proc/loadavg-0123", dest: "/proc/loadavg" }],
    tmpBytes: 1024,
    network: "own",
    user: { uid: 1_879_048_193, gid: 1_879_048_193 },
  };

  it("creates every namespace, drops every capability, waits for the platform and hands over the filter", () => {
    const a = bwrapArgs({ version: "bubblewrap 0.8.0", tmpfsSize: true }, plan, { info: 3, block: 4, userns: 5, seccomp: 6, args: 7 }, [
      "node",
      "server.js",
    ]);
    const flags = a.slice(0, a.indexOf("--"));
    for (const f of [
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-net",
      "--unshare-cgroup-try",
      "--die-with-parent",
    ])
      expect(flags).toContain(f);
    expect(a.join(" ")).toContain("--uid 1879048193 --gid 1879048193");
    expect(a.join(" ")).toContain("--cap-drop ALL");
    expect(a.join(" ")).toContain("--userns-block-fd 5");
    expect(a.join(" ")).toContain("--seccomp 6");
    expect(a.join(" ")).toContain("--perms 1777 --size 1024 --tmpfs /tmp");
    expect(a.join(" ")).toContain("--ro-bind /e/resolv /etc/resolv.conf");
    expect(a.join(" ")).toContain("--bind /data/deployments/d1 /data/deployments/d1");
    expect(a.join(" ")).toContain("--ro-bind /data/packages/p@1 /data/packages/p@1");
    expect(a.slice(a.indexOf("--") + 1)).toEqual(["node", "server.js"]);
    // The environment and the working directory come from a descriptor, never the command line.
    expect(a.join(" ")).toContain("--args 7 --");
    expect(a).not.toContain("--chdir");
    expect(a).not.toContain("--setenv");
    // Machine-wide figures are covered once the sandbox's own /proc is mounted.
    expect(a.join(" ").indexOf("--ro-bind /e/proc/loadavg-0123 /proc/loadavg")).toBeGreaterThan(a.join(" ").indexOf("--proc /proc"));
    // A platform installed under /usr is covered after /usr is bound (bwrap applies its arguments in order).
    expect(a.join(" ").indexOf("--tmpfs /usr/src/app")).toBeGreaterThan(a.join(" ").indexOf("--ro-bind /usr /usr"));
    // Nothing of the host beyond the system: no /home, /root, /var, /run, the data directory or the host's /etc.
    for (const p of ["/home", "/root", "/var", "/run", "/data ", "/etc /etc"]) expect(` ${a.join(" ")} `.includes(` ${p}`)).toBe(false);
  });

  it("gives an image its tree as / (read-only, or its own writable layer) and none of the host's system", () => {
    const image = { ...plan, writable: [], root: "/pk/images/sha256-ab-amd64/rootfs", binds: [{ source: "/dd/d1/data", dest: "/data" }] };
    const ro = bwrapArgs({ version: "bubblewrap 0.8.0", tmpfsSize: true }, image, { info: 3, block: 4, args: 5 }, ["/usr/bin/node"]).join(
      " ",
    );
    expect(ro).toContain("--ro-bind /pk/images/sha256-ab-amd64/rootfs /");
    expect(ro).not.toContain("--ro-bind /usr /usr");
    expect(ro).toContain("--bind /dd/d1/data /data");
    const rw = bwrapArgs(
      { version: "bubblewrap 0.8.0", tmpfsSize: true },
      { ...image, root: "/dd/.roots/d1", rootWritable: true },
      { info: 3, block: 4, args: 5 },
      ["/usr/bin/node"],
    ).join(" ");
    expect(rw).toContain("--bind /dd/.roots/d1 / ");
    expect(rw).not.toContain("--ro-bind /dd/.roots/d1");
    // The platform's files still come after the root, so they cover what the image or its layer holds there.
    expect(rw.indexOf("--ro-bind /e/passwd /etc/passwd")).toBeGreaterThan(rw.indexOf("--bind /dd/.roots/d1 /"));
  });

  it("hands the program its environment and working directory through a descriptor, applied inside: nothing a NUL could smuggle", () => {
    const text = (b: Buffer) => b.toString("utf8").split("\0");
    const parts = text(descriptorArgs({ API_KEY: "s3cret --bind / /host", LD_PRELOAD: "/x.so", EMPTY: "" }, "/app"));
    expect(parts).toEqual([
      "--clearenv",
      "--setenv",
      "API_KEY",
      "s3cret --bind / /host",
      "--setenv",
      "LD_PRELOAD",
      "/x.so",
      "--setenv",
      "EMPTY",
      "",
      "--chdir",
      "/app",
      "",
    ]);
    // A NUL would end the value and make the rest options of bwrap's.
    expect(() => descriptorArgs({ API_KEY: "x\0--bind\0/\0/host" }, "/")).toThrow(SandboxEnvError);
    expect(() => descriptorArgs({ "A=B": "x" }, "/")).toThrow(/not a valid environment variable name/);
    expect(() => descriptorArgs({ "1A": "x" }, "/")).toThrow(SandboxEnvError);
    expect(() => descriptorArgs({ A: "x" }, "/a\0--bind")).toThrow(SandboxEnvError);
    expect(() => descriptorArgs({ A: "x".repeat(MAX_ENV_BYTES) }, "/")).toThrow(/larger than/);
  });

  it("shares the host's network only when told to", () => {
    const a = bwrapArgs({ version: "bubblewrap 0.8.0", tmpfsSize: false }, { ...plan, network: "host" }, { info: 3, block: 4, args: 5 }, [
      "true",
    ]);
    expect(a).not.toContain("--unshare-net");
    expect(a).not.toContain("--size");
  });
});
