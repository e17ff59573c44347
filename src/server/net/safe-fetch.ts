import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";

// Server-side fetches: https only, never to private, loopback or link-local addresses, and every
// redirect is checked again (security baseline). The host is resolved once and the connection
// goes to that checked address (no second lookup a rebinding DNS server could answer differently).
function privateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split(".").map(Number) as [number, number];
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  const v6 = ip.toLowerCase();
  // An IPv4 address inside IPv6 (mapped ::ffff:a.b.c.d or the old compatible ::a.b.c.d), in any
  // spelling (Node's URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1): judged as that IPv4 address.
  const embedded = embeddedIPv4(v6);
  if (embedded) return privateAddress(embedded);
  // NAT64 and 6to4 can reach any IPv4 address; multicast and documentation ranges are never a server.
  if (v6.startsWith("64:ff9b:") || v6.startsWith("2002:") || v6.startsWith("ff") || v6.startsWith("2001:db8:")) return true;
  return v6 === "::1" || v6 === "::" || v6.startsWith("fc") || v6.startsWith("fd") || /^fe[89ab]/.test(v6);
}

/** The 16 bytes of an IPv6 address, or null. */
function ipv6Bytes(v6: string): number[] | null {
  if (!net.isIPv6(v6)) return null;
  let text = v6;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.flatMap((g) => {
    const n = parseInt(g || "0", 16);
    return [n >> 8, n & 0xff];
  });
}

/** The IPv4 address an IPv4-mapped (::ffff:0:0/96) or IPv4-compatible (::/96) IPv6 address carries. */
function embeddedIPv4(v6: string): string | null {
  const b = ipv6Bytes(v6);
  if (!b || b.slice(0, 10).some((x) => x !== 0)) return null;
  const mapped = b[10] === 0xff && b[11] === 0xff;
  const compatible = b[10] === 0 && b[11] === 0;
  if (!mapped && !compatible) return null;
  const v4 = b.slice(12).join(".");
  // "::" and "::1" are IPv6's own unspecified and loopback addresses, judged below.
  return compatible && (v4 === "0.0.0.0" || v4 === "0.0.0.1") ? null : v4;
}

/** The address to connect to: the host resolved once, every answer public (an IP literal is checked as is). */
export async function resolvePublic(url: URL): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addrs = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  if (addrs.length === 0 || addrs.some((a) => privateAddress(a.address)))
    throw new Error("private, loopback and link-local addresses are not allowed");
  return addrs[0]!;
}

export async function assertPublicHttps(url: URL): Promise<void> {
  if (url.protocol !== "https:") throw new Error("only https URLs are allowed");
  await resolvePublic(url);
}

export interface PinnedFetchOptions {
  /** the body is cut off (an error) past this many bytes */
  maxBytes: number;
  /** the whole exchange, connection to last byte */
  timeoutMs: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Test-only: connect over plain http to this loopback address instead (the URL's port and
   * path are kept). Never set in production (the config refuses the setting that enables it).
   */
  loopbackHttp?: "127.0.0.1";
}

/**
 * One GET to a public https address, fetch-shaped: the host is resolved once and the connection
 * pinned to that checked address (TLS still verifies the name), a redirect is returned as is and
 * never followed, and the body is read within the size and time limits before this resolves.
 */
export async function pinnedFetch(input: string | URL, opts: PinnedFetchOptions): Promise<Response> {
  const url = new URL(input);
  if (url.protocol !== "https:") throw new Error("only https URLs are allowed");
  const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs);
  const target = opts.loopbackHttp ? { address: opts.loopbackHttp, family: 4 } : await resolvePublic(url);
  const headers = { accept: "application/json", "user-agent": "Switchboard", ...opts.headers, host: url.host };
  const request = opts.loopbackHttp ? http.request : https.request;
  const options: https.RequestOptions = {
    method: "GET",
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port || (opts.loopbackHttp ? 80 : 443),
    path: url.pathname + url.search,
    headers,
    agent: false,
    signal,
    servername: net.isIP(url.hostname.replace(/^\[|\]$/g, "")) ? undefined : url.hostname,
    // Every lookup of this connection answers the checked address (Node asks for a list when it races address families).
    lookup: (_host, o, cb) => {
      const done = cb as (e: Error | null, a: string | { address: string; family: number }[], f?: number) => void;
      if ((o as { all?: boolean }).all) done(null, [target]);
      else done(null, target.address, target.family);
    },
  };
  return new Promise<Response>((resolve, reject) => {
    const req = request(options, (res) => {
      const status = res.statusCode ?? 502;
      const out = new Headers();
      for (const [k, v] of Object.entries(res.headers))
        for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one);
      if (Number(out.get("content-length")) > opts.maxBytes) {
        res.destroy();
        return reject(new Error("response too large"));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.byteLength;
        if (size > opts.maxBytes) {
          res.destroy();
          reject(new Error("response too large"));
          return;
        }
        chunks.push(c);
      });
      res.on("error", reject);
      res.on("end", () => {
        const body = [101, 204, 205, 304].includes(status) ? null : Buffer.concat(chunks);
        resolve(new Response(body, { status, statusText: res.statusMessage, headers: out }));
      });
    });
    req.on("error", reject);
    req.end();
  });
}

export async function safeFetch(input: string, opts: { maxBytes: number; maxRedirects?: number }): Promise<string> {
  let url = new URL(input);
  for (let hop = 0; hop <= (opts.maxRedirects ?? 5); hop++) {
    const res = await pinnedFetch(url, { maxBytes: opts.maxBytes, timeoutMs: 30_000, headers: { accept: "*/*" } });
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      url = new URL(res.headers.get("location")!, url);
      continue;
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return readLimited(res, opts.maxBytes);
  }
  throw new Error("too many redirects");
}

/** The body as text, stopping as soon as it passes maxBytes (never buffering more). */
export async function readLimited(res: Response, maxBytes: number): Promise<string> {
  if (Number(res.headers.get("content-length")) > maxBytes) throw new Error("response too large");
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (let r = await reader?.read(); reader && r && !r.done; r = await reader.read()) {
    size += r.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error("response too large");
    }
    chunks.push(r.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export { privateAddress as isPrivateAddress };
