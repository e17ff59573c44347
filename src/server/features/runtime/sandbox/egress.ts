import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { egressPolicies, egressRoutes, hostAddresses, hostRoutes, type EgressPlan } from "./egress-rules.js";
import { hostSpawn } from "./host-process.js";
import type { Identity } from "./identity.js";

// A sandbox's network: its own namespace, joined to the outside by slirp4netns (user-mode NAT),
// which is itself run as the deployment's unprivileged uid. slirp4netns connects from the host,
// so it reaches whatever the host reaches; what the sandbox may send it is decided by routes in
// the sandbox's own namespace, set by the platform before the program starts and unchangeable
// from inside (no capabilities, no new namespaces). Every destination that is not public gets a
// `prohibit` route (connect() fails with EACCES): loopback, this network, private, carrier-grade
// NAT, link-local, IETF protocol, benchmarking, multicast and reserved ranges, the host's own
// addresses and the networks it is attached to, and slirp's gateway (the host's loopback). DNS
// goes to slirp's resolver at 10.0.2.3, which asks the host's resolver. slirp4netns runs without
// IPv6, so the sandbox has no IPv6 route at all; IPv6 ranges are prohibited as well, in case.
//
// Routes alone can be bypassed: a socket bound to a device (SO_BINDTODEVICE, IP_UNICAST_IF,
// IP_MULTICAST_IF, IP_PKTINFO) or to the sandbox's own address sends broadcast and multicast
// without looking at any table, and a failed lookup with a device named is taken as "on link".
// So the same destinations are also refused by `block` policies of the kernel's IPsec framework
// (xfrm), which it checks for every route it hands out, however the route was chosen: sendto()
// and connect() fail with EPERM. Broadcast (255.255.255.255, slirp's 10.0.2.255) and multicast
// (224.0.0.0/4, ff00::/8) are refused whatever SANDBOX_EGRESS_ALLOW says.
//
// The address rules (which ranges, the routes and policies as `ip -batch` lines) are egress-rules.ts;
// this module starts slirp4netns and puts them in place.

/**
 * Whether the kernel takes the sandboxes' xfrm policies: undefined until the first launch with a
 * network (the start-up probe) tried, null when it did, else why not. Without them broadcast,
 * multicast and a socket bound to tap0 get past the routes, and the probe reports egress missing.
 */
let policyProblem: string | null | undefined;

export function egressPolicyProblem(): string | null | undefined {
  return policyProblem;
}

function run(file: string, args: string[], input: string | null, opts: { uid?: number; gid?: number } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = hostSpawn(file, args, { stdio: [input === null ? "ignore" : "pipe", "ignore", "pipe"], ...opts });
    let err = "";
    p.stderr!.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-2000)));
    p.once("error", reject);
    p.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} failed (${code}): ${err.trim().split("\n").slice(-3).join(" ")}`)),
    );
    p.stdin?.on("error", () => {}); // it may exit before reading everything: its exit code says why
    if (input !== null) p.stdin!.end(input);
  });
}

export interface EgressOptions {
  /** the sandbox's first process (bwrap's info fd `child-pid`) */
  pid: number;
  /** whether the sandbox has a user namespace of its own (slirp4netns joins it to reach the network namespace) */
  userns: boolean;
  /** slirp4netns runs as the sandbox's uid, under its own seccomp filter, in a mount namespace with an empty root: a flaw in its packet handling gains neither root nor the host's files */
  identity: Identity | null;
  allow: string[];
}

function capture(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const p = hostSpawn(file, args, { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    p.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    p.once("error", () => resolve(""));
    p.once("exit", () => resolve(out));
  });
}

/**
 * bwrap gives the new network namespace its loopback address itself, and fails (killing the
 * sandbox) if the address is already there. slirp4netns --configure brings `lo` up, which makes
 * the kernel add that address: started too early it races bwrap. So it starts only once bwrap's
 * address is in place.
 */
async function loopbackReady(pid: number, userns: string[], timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    const out = await capture("nsenter", [`--target=${pid}`, ...userns, "--net", "ip", "-o", "-4", "addr", "show", "dev", "lo"]);
    if (out.includes("127.0.0.1")) return;
    if (Date.now() > deadline) throw new Error("the sandbox's network did not come up (no loopback address)");
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Gives the namespace of `pid` NATed access to public addresses only; resolves with slirp4netns once routes are in place. */
export async function attachEgress(o: EgressOptions): Promise<ChildProcess> {
  // As root the platform may enter any network namespace; otherwise it enters the sandbox's user
  // namespace first, which it owns.
  const userns = process.getuid?.() === 0 ? [] : ["--user", "--preserve-credentials"];
  await loopbackReady(o.pid, userns);
  const ids = o.identity ? { uid: o.identity.uid, gid: o.identity.gid } : {};
  const slirp = hostSpawn(
    "slirp4netns",
    [
      "--configure",
      "--mtu=65520",
      "--disable-host-loopback",
      "--enable-seccomp",
      "--enable-sandbox",
      ...(o.userns ? [`--userns-path=/proc/${o.pid}/ns/user`] : []),
      "--ready-fd=3",
      "--exit-fd=4",
      String(o.pid),
      "tap0",
    ],
    // fd 4 closes when the platform dies (even by kill -9), which ends slirp4netns too.
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], ...ids },
  );
  let err = "";
  slirp.stderr!.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-2000)));
  // socketpairs: killing slirp4netns resets them; its exit is what matters.
  for (const s of slirp.stdio) (s as NodeJS.EventEmitter | null)?.on("error", () => {});
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("slirp4netns did not become ready")), 10_000);
      slirp.once("error", reject);
      slirp.once("exit", (code) =>
        reject(new Error(`slirp4netns exited with code ${code}: ${err.trim().split("\n").slice(-2).join(" ")}`)),
      );
      (slirp.stdio[3] as NodeJS.ReadableStream).once("data", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    slirp.removeAllListeners("exit");
    const plan: EgressPlan = { host: hostAddresses(), routes: hostRoutes(), allow: o.allow, ipv6: existsSync("/proc/net/if_inet6") };
    const ip = (lines: string[]) => run("nsenter", [`--target=${o.pid}`, ...userns, "--net", "ip", "-batch", "-"], lines.join("\n") + "\n");
    // Policies first: the program is blocked until both are in place, and one batch once they are known to work.
    if (policyProblem === undefined) {
      await ip(egressPolicies(plan)).then(
        () => (policyProblem = null),
        (e: Error) => (policyProblem = `the kernel refused the sandbox's xfrm policies (CONFIG_XFRM_USER): ${e.message}`),
      );
      await ip(egressRoutes(plan));
    } else await ip([...(policyProblem === null ? egressPolicies(plan) : []), ...egressRoutes(plan)]);
    return slirp;
  } catch (e) {
    slirp.kill("SIGKILL");
    throw e;
  }
}
