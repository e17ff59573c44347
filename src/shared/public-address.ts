// Whether an address can be reached by apps that call it from their own cloud (Claude.ai's and
// ChatGPT's connectors), and whether a page was reached at the address PUBLIC_URL names. Pure, so
// the page, the tests and the start-up log read them alike.

/** Why a connector in another company's cloud cannot reach `url`; null when it can. */
export type Unreachable = "not-https" | "not-public" | null;

export function connectorReach(url: string): Unreachable {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "not-public";
  }
  if (!isPublicHost(u.hostname)) return "not-public";
  return u.protocol === "https:" ? null : "not-https";
}

/**
 * A host name or IP address that the internet can resolve and route to: not loopback, private,
 * link-local, carrier-grade NAT or unique-local space, and not a name only a local network knows
 * (`localhost`, `*.local`, `*.localhost`, `*.internal`, `*.lan`, `*.home.arpa`, a name without a dot).
 */
export function isPublicHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (h === "") return false;
  if (h.includes(":")) return isPublicIpv6(h);
  const v4 = ipv4(h);
  if (v4) return isPublicIpv4(v4);
  if (!h.includes(".")) return false;
  return !/(^|\.)(localhost|local|internal|lan|home\.arpa|test|invalid|example)$/.test(h);
}

function ipv4(h: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function isPublicIpv4([a, b]: number[]): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
  if (a === 169 && b === 254) return false;
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT (a VPN's addresses)
  return true;
}

function isPublicIpv6(h: string): boolean {
  if (h === "::1" || h === "::") return false;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as that address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h)?.[1];
  if (mapped) {
    const v4 = ipv4(mapped);
    return v4 ? isPublicIpv4(v4) : false;
  }
  if (/^::ffff:/.test(h)) return false;
  // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast
  return !/^(f[cd]|fe[89ab]|ff)/.test(h);
}

/**
 * The host a page was reached at (the request's Host, with its port) when it is not the one in
 * PUBLIC_URL; null when they agree. Every URL the platform gives out (deployments, e-mails, OAuth)
 * is built on PUBLIC_URL, so an admin reaching it elsewhere is shown URLs that may not work there.
 */
export function otherHost(requestUrl: string, publicUrl: string): string | null {
  try {
    const seen = new URL(requestUrl).host.toLowerCase();
    return seen === new URL(publicUrl).host.toLowerCase() ? null : seen;
  } catch {
    return null;
  }
}
