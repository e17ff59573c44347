import { existsSync } from "node:fs";
import path from "node:path";
import { SANDBOX_PATH } from "./bwrap.js";
import type { UidPool } from "./identity.js";
import type { Sandbox } from "./index.js";

// A probe program launched exactly as a deployment would be, reporting what it can do; and where
// the host's tools are.

const SYS_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export function which(bin: string): string | undefined {
  for (const dir of `${process.env.PATH ?? ""}:${SYS_PATH}`.split(":")) {
    if (!dir) continue;
    const p = path.join(dir, bin);
    if (existsSync(p)) return p;
  }
  return undefined;
}

// Run inside the sandbox: what can a hosted program do here? One JSON line.
const PROBE = String.raw`
const fs = require("fs"), net = require("net");
const st = fs.readFileSync("/proc/self/status", "utf8");
const field = (k) => (new RegExp("^" + k + ":\\s*(\\S+)", "m").exec(st) || [])[1] || null;
let sys = "writable";
try { fs.closeSync(fs.openSync("/proc/sys/kernel/core_pattern", "r+")); } catch (e) { sys = e.code; }
let fds = 0;
for (const n of fs.readdirSync("/proc/self/fd")) {
  if (Number(n) < 3) continue;
  try { if (!(parseInt(/flags:\s+([0-7]+)/.exec(fs.readFileSync("/proc/self/fdinfo/" + n, "utf8"))[1], 8) & 0o2000000)) fds++; } catch {}
}
const uid = process.getuid();
// The host's view of this uid, through the user namespace's map (inside, outside, count).
const line = fs.readFileSync("/proc/self/uid_map", "utf8").trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number)).find(([i, , n]) => uid >= i && uid < i + n);
const hostUid = line ? line[1] + uid - line[0] : uid;
const out = { uid, hostUid, capEff: field("CapEff"), nnp: field("NoNewPrivs"), seccomp: field("Seccomp"), sys, fds };
const { target, multicast } = JSON.parse(process.argv[1] || "{}");
const connect = () => new Promise((resolve) => {
  const s = net.connect({ host: target, port: 9 });
  const done = (r) => { s.destroy(); resolve(r); };
  s.setTimeout(3000, () => done("ETIMEDOUT"));
  s.on("connect", () => done("connected"));
  s.on("error", (e) => done(e.code));
});
// Multicast from the sandbox's own address, the way around routes: refused by the kernel's
// policies, or it would leave. TTL 0 keeps it on this machine even then.
const mcast = () => new Promise((resolve) => {
  const own = Object.values(require("os").networkInterfaces()).flat().find((a) => a && a.family === "IPv4" && !a.internal);
  const s = require("dgram").createSocket("udp4");
  s.on("error", (e) => resolve(e.code));
  s.bind(0, own && own.address, () => {
    s.setMulticastTTL(0);
    s.send("x", 9, "239.255.0.9", (e) => { s.close(); resolve(e ? e.code : "sent"); });
  });
});
(async () => {
  if (target) out.egress = await connect();
  if (multicast) out.multicast = await mcast();
  console.log(JSON.stringify(out));
})();`;

export interface ProbeResult {
  uid: number;
  hostUid: number;
  capEff: string | null;
  nnp: string | null;
  seccomp: string | null;
  sys: string;
  fds: number;
  egress?: string;
  /** a multicast datagram sent from the sandbox's own address: "EPERM" when refused */
  multicast?: string;
}

/** `target`: an address of the host a connection to which must be refused; `multicast`: check that multicast is refused too. */
export async function probe(
  sandbox: Sandbox,
  uids: UidPool,
  cwd: string,
  checks: { target?: string; multicast?: boolean },
): Promise<ProbeResult> {
  const out = await sandbox.run(
    {
      argv: [process.execPath, "-e", PROBE, JSON.stringify(checks)],
      env: { PATH: SANDBOX_PATH, HOME: cwd },
      cwd,
      writable: [],
      readOnly: [],
      network: true,
      identity: uids.installer(),
      limits: { memoryMb: 256, maxProcesses: 64, cpus: 0 },
      label: "probe",
    },
    20_000,
  );
  const line = out.split("\n").findLast((l) => l.startsWith("{"));
  if (!line) throw new Error(`the probe printed nothing usable: ${out.slice(-300)}`);
  return JSON.parse(line) as ProbeResult;
}
