import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import { Transform } from "node:stream";
import { CONNECTION_TEXT } from "~/shared/connections.js";
import { networkOf } from "../features/runtime/sandbox/cidr.js";
import { isPrivateAddress } from "./safe-fetch.js";

// The outbound client of connections (remote MCP servers a user connects, docs/gateway.md#connections).
// What hosted code may reach, a connection may reach: public addresses over https, and the
// addresses the operator lists in SANDBOX_EGRESS_ALLOW (plain http allowed there only). The host
// is resolved once, every answer checked, and every request of the connection goes to that
// checked address (no DNS rebinding). Nothing is sent to another origin, no redirect is
// followed, and every answer is held to a size (each event of a stream) and a time.

/** An address the operator listed (IPv4 CIDRs from SANDBOX_EGRESS_ALLOW, as parseAllowList gives them). */
export function allowListed(ip: string, allow: readonly string[]): boolean {
  const v4 = ip.startsWith("::ffff:") && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  if (!net.isIPv4(v4)) return false;
  return allow.some((cidr) => networkOf(v4, Number(cidr.split("/")[1])) === cidr);
}

/** This machine's own addresses: a public one still reaches the platform itself. */
function ownAddresses(): Set<string> {
  return new Set(
    Object.values(os.networkInterfaces())
      .flat()
      .map((i) => i?.address.toLowerCase())
      .filter((a): a is string => Boolean(a)),
  );
}

export class UpstreamRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UpstreamRefused";
  }
}

export interface Pinned {
  address: string;
  family: number;
}

/**
 * The address a connection goes to: the URL's host resolved once, every answer acceptable. https
 * reaches public addresses (not this machine's own); plain http and anything else only what the
 * operator allows.
 */
export async function resolveUpstream(url: URL, allow: readonly string[]): Promise<Pinned> {
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UpstreamRefused(CONNECTION_TEXT.onlyHttps);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addrs: Pinned[];
  try {
    addrs = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new UpstreamRefused(CONNECTION_TEXT.noAddress(host));
  }
  if (addrs.length === 0) throw new UpstreamRefused(CONNECTION_TEXT.noAddress(host));
  const own = ownAddresses();
  for (const a of addrs) {
    if (allowListed(a.address, allow)) continue;
    if (url.protocol !== "https:") throw new UpstreamRefused(CONNECTION_TEXT.onlyHttps);
    if (isPrivateAddress(a.address) || own.has(a.address.toLowerCase())) throw new UpstreamRefused(CONNECTION_TEXT.refusedAddress(host));
  }
  return addrs[0]!;
}

export interface UpstreamFetchOptions {
  /** the connection's URL: only its origin is ever fetched */
  url: URL;
  target: Pinned;
  /** headers sent with every request (the connection's credentials); the transport's own win */
  headers: Record<string, string>;
  /** the largest answer, or the largest event of a stream */
  maxBodyBytes: number;
  /** until the answer's headers arrive */
  headersTimeoutMs: number;
  /** the whole answer to a message (a POST streaming events included); the GET stream of notifications is not bounded in time */
  answerTimeoutMs: number;
  /** bytes a second the platform reads from this connection, on average (DEPLOY_OUTPUT_BYTES_PER_SECOND) */
  bytesPerSecond: number;
  /** an answer to the messages `body` carried was cut off (too large, too long): they get `message` as their error */
  onCut?: (body: string, message: string) => void;
  /** sockets kept open for the next request (the default); off for one-off requests */
  keepAlive?: boolean;
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * What one connection may make the platform read: `bytesPerSecond` on average, a second's worth at
 * once. Beyond, reading waits (the server's writes then wait in TCP), as a hosted server's output
 * waits in its pipe (DEPLOY_OUTPUT_BYTES_PER_SECOND): a server that streams without end costs the
 * platform a bounded share of a core.
 */
class ReadBudget {
  private tokens: number;
  private at = Date.now();
  constructor(private readonly rate: number) {
    this.tokens = rate;
  }
  /** How long to wait before `n` more bytes are read. */
  spend(n: number): number {
    const now = Date.now();
    this.tokens = Math.min(this.rate, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.rate) * 1000);
  }
}

/** Counts a body's bytes: in all, or for an event stream since its last event. Past `max`, the stream errors. */
function bounded(max: number, events: boolean, budget: ReadBudget): Transform {
  let pending = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (events) {
        const text = chunk.toString("latin1");
        const end = Math.max(text.lastIndexOf("\n\n"), text.lastIndexOf("\r\n\r\n"));
        pending = end >= 0 ? chunk.length - end : pending + chunk.length;
      } else pending += chunk.length;
      if (pending > max) return cb(new UpstreamRefused(CONNECTION_TEXT.tooLarge(max)));
      const wait = budget.spend(chunk.length);
      if (wait === 0) cb(null, chunk);
      else setTimeout(() => cb(null, chunk), wait);
    },
  });
}

/**
 * The body as a web stream, read as the client reads it. Written by hand: Node's own adapter
 * enqueues into a stream the client already cancelled, and throws out of the event loop.
 */
function webStream(body: Transform, abort: () => void): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.on("data", (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) body.pause();
      });
      body.once("end", () => {
        if (!done) controller.close();
        done = true;
      });
      body.once("error", (e) => {
        if (!done) controller.error(e);
        done = true;
      });
    },
    pull() {
      body.resume();
    },
    cancel() {
      done = true;
      body.destroy();
      abort();
    },
  });
}

/**
 * Ends the request when `signal` aborts. An SDK transport's one signal serves all its requests:
 * each request's listener goes with the request, so they do not pile up on it.
 */
export function abortWith(req: http.ClientRequest, signal: AbortSignal | null | undefined): void {
  if (!signal) return;
  const onAbort = () => req.destroy(signal.reason as Error);
  if (signal.aborted) {
    onAbort();
    return;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  req.once("close", () => signal.removeEventListener("abort", onAbort));
}

/** A fetch for one connection: pinned to its checked address, kept alive, bounded. `close` ends its sockets. */
export function upstreamFetch(o: UpstreamFetchOptions): { fetch: FetchLike; close(): void } {
  const secure = o.url.protocol === "https:";
  const hostname = o.url.hostname.replace(/^\[|\]$/g, "");
  const lookupPinned = (_host: string, opts: unknown, cb: unknown) => {
    const done = cb as (e: Error | null, a: string | Pinned[], f?: number) => void;
    if ((opts as { all?: boolean }).all) done(null, [o.target]);
    else done(null, o.target.address, o.target.family);
  };
  const agent = secure
    ? new https.Agent({
        keepAlive: o.keepAlive ?? true,
        maxSockets: 64,
        lookup: lookupPinned as never,
        servername: net.isIP(hostname) ? undefined : hostname,
      })
    : new http.Agent({ keepAlive: o.keepAlive ?? true, maxSockets: 64, lookup: lookupPinned as never });
  const request = secure ? https.request : http.request;
  const budget = new ReadBudget(o.bytesPerSecond);

  const once: FetchLike = (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.origin !== o.url.origin) return reject(new UpstreamRefused(CONNECTION_TEXT.otherOrigin));
      const method = (init?.method ?? "GET").toUpperCase();
      const headers: Record<string, string> = { "user-agent": "Switchboard", ...o.headers };
      new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
      const req = request({
        agent,
        host: hostname,
        port: url.port || (secure ? 443 : 80),
        path: url.pathname + url.search,
        method,
        headers,
      });
      const waiting = setTimeout(
        () => req.destroy(new UpstreamRefused(CONNECTION_TEXT.noAnswer(o.headersTimeoutMs / 1000))),
        o.headersTimeoutMs,
      );
      req.on("error", (e) => {
        clearTimeout(waiting);
        // A kept-alive socket the server closed as this request went out: the server never saw it.
        const stale = (e as NodeJS.ErrnoException).code === "ECONNRESET" && req.reusedSocket;
        reject(stale ? Object.assign(e, { stale: true }) : e);
      });
      req.on("response", (res) => {
        clearTimeout(waiting);
        const status = res.statusCode ?? 502;
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one);
        if (Number(out.get("content-length")) > o.maxBodyBytes) {
          res.destroy();
          return reject(new UpstreamRefused(CONNECTION_TEXT.tooLarge(o.maxBodyBytes)));
        }
        const events = (out.get("content-type") ?? "").includes("text/event-stream");
        const counted = bounded(o.maxBodyBytes, events, budget);
        // An answer to a message is bounded in time, a stream of events too; only the GET stream of notifications stays open.
        const limit =
          method === "GET" && events
            ? undefined
            : setTimeout(() => counted.destroy(new UpstreamRefused(CONNECTION_TEXT.tooLong(o.answerTimeoutMs / 1000))), o.answerTimeoutMs);
        const end = () => clearTimeout(limit);
        counted.on("close", end);
        res.on("error", (e) => counted.destroy(e));
        counted.on("error", (e) => {
          res.destroy();
          if (e instanceof UpstreamRefused && typeof init?.body === "string") o.onCut?.(init.body, e.message);
        });
        res.pipe(counted);
        const empty = [101, 204, 205, 304].includes(status) || method === "HEAD";
        if (empty) {
          end();
          res.resume();
        }
        const body = empty ? null : webStream(counted, () => res.destroy());
        // A 1xx or out-of-range status is not a Response: it is an answer the client cannot use.
        resolve(new Response(body, { status: status >= 200 && status <= 599 ? status : 502, statusText: res.statusMessage, headers: out }));
      });
      abortWith(req, init?.signal);
      const body = init?.body;
      if (body === undefined || body === null) req.end();
      else if (body instanceof URLSearchParams) req.end(body.toString());
      else req.end(typeof body === "string" ? body : Buffer.from(body as ArrayBuffer));
    });
  // Sent again once on a new socket when a reused one turned out closed (Node's advice for keep-alive agents).
  const fetch: FetchLike = (input, init) =>
    once(input, init).catch((e: unknown) =>
      (e as { stale?: boolean }).stale && !init?.signal?.aborted ? once(input, init) : Promise.reject(e),
    );
  return { fetch, close: () => agent.destroy() };
}

export interface GuardedFetchOptions {
  /** SANDBOX_EGRESS_ALLOW, parsed */
  allow: readonly string[];
  maxBodyBytes: number;
  headersTimeoutMs: number;
  answerTimeoutMs: number;
  bytesPerSecond: number;
}

/**
 * A fetch for any origin under the same rules as a connection's (each URL's host resolved once and
 * checked, that address connected to, no redirect followed, answers bounded) and with no
 * credential of the connection's: what OAuth discovery, registration, tokens and revocation reach,
 * wherever a server's metadata points.
 */
export function guardedFetch(o: GuardedFetchOptions): FetchLike {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = await resolveUpstream(url, o.allow);
    const one = upstreamFetch({ ...o, url, target, headers: {}, keepAlive: false });
    return one.fetch(url, init);
  };
}
