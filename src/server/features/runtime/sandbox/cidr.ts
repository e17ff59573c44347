import net from "node:net";

// Address arithmetic for the sandbox's routes and the operator's egress exceptions.

/** An address with its prefix length, host bits cleared (what `ip route` wants). */
export function networkOf(address: string, prefix: number): string {
  if (net.isIPv4(address)) {
    const n = address.split(".").reduce((a, o) => (a << 8n) | BigInt(Number(o)), 0n);
    const masked = prefix === 0 ? 0n : (n >> BigInt(32 - prefix)) << BigInt(32 - prefix);
    return `${[24n, 16n, 8n, 0n].map((s) => String((masked >> s) & 255n)).join(".")}/${prefix}`;
  }
  const [head = "", tail = ""] = address.split("%")[0]!.split("::");
  const groups = (s: string) => (s ? s.split(":") : []);
  const h = groups(head);
  const t = groups(tail);
  const all = address.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  const n = all.reduce((a, g) => (a << 16n) | BigInt(parseInt(g || "0", 16)), 0n);
  const masked = prefix === 0 ? 0n : (n >> BigInt(128 - prefix)) << BigInt(128 - prefix);
  const out = Array.from({ length: 8 }, (_, i) => ((masked >> BigInt(16 * (7 - i))) & 0xffffn).toString(16));
  return `${out.join(":")}/${prefix}`;
}

/** Parses SANDBOX_EGRESS_ALLOW entries: IPv4 addresses or CIDRs; throws on anything else. */
export function parseAllowList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [addr = "", len] = entry.split("/");
      const prefix = len === undefined ? 32 : Number(len);
      if (!net.isIPv4(addr) || !Number.isInteger(prefix) || prefix < 1 || prefix > 32 || (len !== undefined && !/^\d+$/.test(len))) {
        throw new Error(`"${entry}" is not an IPv4 address or CIDR such as 10.1.2.3 or 10.1.0.0/16 (IPv6 has no egress)`);
      }
      return networkOf(addr, prefix);
    });
}
