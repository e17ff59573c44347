import { lookup } from "node:dns/promises";
import net from "node:net";

// Server-side fetches: https only, never to private, loopback or link-local addresses, and every
// redirect is checked again (security baseline).
function privateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split(".").map(Number) as [number, number];
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith("::ffff:")) return privateAddress(v6.slice(7));
  return v6 === "::1" || v6 === "::" || v6.startsWith("fc") || v6.startsWith("fd") || v6.startsWith("fe80");
}

export async function assertPublicHttps(url: URL): Promise<void> {
  if (url.protocol !== "https:") throw new Error("only https URLs are allowed");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addrs = net.isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
  if (addrs.length === 0 || addrs.some((a) => privateAddress(a.address))) throw new Error("private, loopback and link-local addresses are not allowed");
}

export async function safeFetch(input: string, opts: { maxBytes: number; maxRedirects?: number }): Promise<string> {
  let url = new URL(input);
  for (let hop = 0; hop <= (opts.maxRedirects ?? 5); hop++) {
    await assertPublicHttps(url);
    const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(30_000) });
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
