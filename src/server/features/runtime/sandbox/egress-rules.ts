// A sandbox's address rules (the design is in egress.ts): the ranges it may never reach, the host's
// own addresses and networks, and the `ip -batch` lines (prohibit routes, xfrm policies) refusing them.
import { readFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import { networkOf } from "./cidr.js";

export const SLIRP_GATEWAY = "10.0.2.2";
export const SLIRP_DNS = "10.0.2.3";

export const DENIED_V4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/4",
  "240.0.0.0/4",
  // Azure's WireServer: a platform endpoint on a public address.
  "168.63.129.16/32",
  `${SLIRP_GATEWAY}/32`,
];
export const DENIED_V6 = ["::1/128", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "fc00::/7", "fe80::/10", "ff00::/8"];
/** slirp's network broadcast address (its network is 10.0.2.0/24) */
export const SLIRP_BROADCAST = "10.0.2.255";
/** Broadcast and multicast: refused even where an operator's exception covers them. */
export const NEVER_V4 = ["255.255.255.255/32", `${SLIRP_BROADCAST}/32`, "224.0.0.0/4"];
export const NEVER_V6 = ["ff00::/8"];

export interface HostAddress {
  address: string;
  cidr: string | null;
  internal: boolean;
}

export function hostAddresses(): HostAddress[] {
  return Object.values(os.networkInterfaces()).flatMap((l) =>
    (l ?? []).map((a) => ({ address: a.address, cidr: a.cidr, internal: a.internal })),
  );
}

/**
 * Every network the host reaches other than through its default route: the networks it is
 * attached to, and those behind VPNs, peerings or static routes (the kernel's main tables).
 * Single-host routes are left to the fixed ranges: a public address routed on its own is public.
 */
export function hostRoutes(): string[] {
  const out: string[] = [];
  try {
    for (const line of readFileSync("/proc/net/route", "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 8) continue;
      const le = (hex: string) => {
        const v = parseInt(hex, 16) >>> 0;
        return [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, v >>> 24];
      };
      const prefix = le(f[7]!).reduce((n, o) => n + o.toString(2).replace(/0/g, "").length, 0);
      if (prefix > 0 && prefix < 32) out.push(networkOf(le(f[1]!).join("."), prefix));
    }
  } catch {
    // not Linux
  }
  try {
    for (const line of readFileSync("/proc/net/ipv6_route", "utf8").split("\n")) {
      const [dest, len] = line.trim().split(/\s+/);
      const prefix = parseInt(len ?? "0", 16);
      if (dest?.length === 32 && prefix > 0 && prefix < 128) out.push(networkOf(dest.match(/.{4}/g)!.join(":"), prefix));
    }
  } catch {
    // no IPv6
  }
  return out;
}

// slirp's own network: a prohibit as specific as it (the host sitting on 10.0.2.0/24 too)
// would take the sandbox's DNS and gateway away; its addresses never reach the host's network anyway.
const overlapsSlirp = (cidr: string) => {
  const [addr = "", len] = cidr.split("/");
  return net.isIPv4(addr) && Number(len) >= 24 && networkOf(addr, 24) === "10.0.2.0/24" && cidr !== `${SLIRP_GATEWAY}/32`;
};

export interface EgressPlan {
  host: HostAddress[];
  routes?: string[];
  allow: string[];
  ipv6: boolean;
}

const normal = (r: string) => networkOf(r.split("/")[0]!, Number(r.split("/")[1]));

/** Every network the sandbox may not reach (normalised, without duplicates), before the operator's exceptions. */
function deniedNetworks(opts: EgressPlan): string[] {
  const denied = new Set(DENIED_V4);
  const denied6 = new Set(opts.ipv6 ? DENIED_V6 : []);
  for (const r of opts.routes ?? []) (r.includes(":") ? denied6 : denied).add(r);
  if (!opts.ipv6) denied6.clear();
  for (const a of opts.host) {
    if (a.address.includes("%")) continue; // scoped link-local: inside fe80::/10 already
    const v4 = net.isIPv4(a.address);
    if (!v4 && !opts.ipv6) continue;
    const set = v4 ? denied : denied6;
    set.add(networkOf(a.address, v4 ? 32 : 128));
    const prefix = Number(a.cidr?.split("/")[1]);
    // The networks the host sits on (its neighbours, its gateway) are not "the outside".
    if (!a.internal && Number.isInteger(prefix) && prefix > 0) set.add(networkOf(a.address, prefix));
  }
  return [...new Set([...denied, ...denied6].map(normal))];
}

/**
 * The `ip -batch` lines that shut a sandbox's namespace off from everything but public addresses:
 * prohibit routes, and rules that let only DNS reach slirp's resolver address (libslirp before
 * 4.8 forwards every port of it to the host's resolver, which may be a private or local address).
 */
export function egressRoutes(opts: EgressPlan): string[] {
  const lines = deniedNetworks(opts)
    .filter((r) => !overlapsSlirp(r))
    .map((r) => `route replace prohibit ${r}`);
  lines.push(
    `rule add priority 100 to ${SLIRP_DNS}/32 ipproto udp dport 53 lookup main`,
    `rule add priority 101 to ${SLIRP_DNS}/32 ipproto tcp dport 53 lookup main`,
    `rule add priority 102 to ${SLIRP_DNS}/32 prohibit`,
  );
  // An operator's exception wins over a prohibit of exactly the same prefix (replace), while a
  // narrower prohibit inside it (the host's own address) still holds (longest prefix wins).
  for (const r of opts.allow) lines.push(`route replace ${r} via ${SLIRP_GATEWAY} dev tap0`);
  return lines;
}

// Loopback never leaves through tap0 (the kernel refuses 127/8 on other devices), and IPv4's
// loopback device skips xfrm anyway; IPv6's does not, so ::1 must not get a policy.
const isLoopback = (r: string) =>
  r === "0:0:0:0:0:0:0:1/128" || (net.isIPv4(r.split("/")[0]!) && r.startsWith("127.") && Number(r.split("/")[1]) >= 8);

/**
 * The xfrm policies (`ip -batch` lines) that refuse the same destinations as the routes, checked
 * by the kernel after any route is chosen, so no socket option gets around them. The most specific
 * selector wins (a lower priority number); at the same prefix an operator's exception wins over a
 * denied network, as with the routes; DNS to slirp's resolver, then the refusal of broadcast,
 * multicast and slirp's other addresses come before everything.
 */
export function egressPolicies(opts: EgressPlan): string[] {
  const verdict = new Map<string, "allow" | "block">();
  for (const r of deniedNetworks(opts)) if (!isLoopback(r)) verdict.set(r, "block");
  for (const r of opts.allow) verdict.set(normal(r), "allow");
  // slirp's gateway (the host's loopback) and resolver (but for DNS) stay closed too, or an
  // exception such as 10.0.0.0/8 would open them to a socket bound to tap0.
  const never = [...NEVER_V4, `${SLIRP_GATEWAY}/32`, `${SLIRP_DNS}/32`, ...(opts.ipv6 ? NEVER_V6 : [])].map(normal);
  for (const r of never) verdict.delete(r);
  const policy = (sel: string, action: "allow" | "block", priority: number) =>
    `xfrm policy add ${sel} dir out action ${action} priority ${priority}`;
  const lines = [
    policy(`dst ${SLIRP_DNS}/32 proto udp dport 53`, "allow", 0),
    policy(`dst ${SLIRP_DNS}/32 proto tcp dport 53`, "allow", 0),
  ];
  for (const r of never) lines.push(policy(`dst ${r}`, "block", 1));
  for (const [r, action] of verdict) {
    const len = Number(r.split("/")[1]);
    const max = r.includes(":") ? 128 : 32;
    lines.push(policy(`dst ${r}`, action, 10 + (max - len) * 2 + (action === "block" ? 1 : 0)));
  }
  return lines;
}
