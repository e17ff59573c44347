// A connection: a remote MCP server its publisher (or the user) hosts, seen by the platform as
// the same stream of JSON-RPC messages a hosted process gives. The MCP SDK's client transport
// (streamable HTTP, or the legacy HTTP+SSE) speaks to it through the guarded outbound fetch
// (net/upstream-fetch.ts) with the user's own headers, one upstream session for the connection
// as one process serves a deployment. When that session ends (the server forgot it, the network
// dropped), the link ends and the runner connects again with its back-off, as it restarts a
// process that crashed.
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { CONNECTION_TEXT } from "~/shared/connections.js";
import { guardedFetch, resolveUpstream, upstreamFetch, UpstreamRefused, type FetchLike } from "../../net/upstream-fetch.js";
import { escapeControl, maskSecrets } from "./lines.js";
import { OneSession } from "./one-session.js";
import type { ExitInfo } from "./sandbox/index.js";
import type { OutputStats, ServerLink, UpstreamAuth } from "./runner.js";

export interface RemoteSpec {
  url: string;
  transport: "streamable-http" | "sse";
  /** sent with every request; masked in every log line and error */
  headers: Record<string, string>;
  /** signed in with OAuth: the SDK's transport sends its access token and refreshes it on a 401 */
  auth?: UpstreamAuth;
}

/**
 * The server's authorization server no longer takes the connection's sign-in (the refresh was
 * refused or the grant revoked): only its owner can mend it, so the runner does not reconnect.
 */
export class SignInNeeded extends Error {
  readonly final = true;
  constructor() {
    super(CONNECTION_TEXT.signInAgain);
    this.name = "SignInNeeded";
  }
}

/** A refusal the owner must mend by signing in again: the sign-in is gone, or the server refuses a fresh token. */
const signInGone = (e: unknown, auth: boolean) =>
  e instanceof SignInNeeded ||
  (auth && ((e as { code?: unknown })?.code === 401 || /\bUnauthorized\b/.test(String((e as Error)?.message))));

export interface RemoteOptions {
  /** SANDBOX_EGRESS_ALLOW, parsed: addresses a connection may reach besides public https ones */
  allow: readonly string[];
  maxBodyBytes: number;
  /** until an answer's headers arrive, and the whole answer to one message */
  headersTimeoutMs: number;
  answerTimeoutMs: number;
  /** bytes a second the platform reads from one connection (DEPLOY_OUTPUT_BYTES_PER_SECOND) */
  bytesPerSecond: number;
}

const LOG_LINES = 200;
/** the largest answer an authorization server may give (metadata, a registration, tokens) */
const AUTH_MAX_BYTES = 1024 * 1024;

/** What a failed send says: the HTTP status first when there is one (the SDK's error carries it as `code`). */
function whyOf(e: unknown): string {
  const message = String((e as Error)?.message ?? e);
  const status = (e as { code?: unknown })?.code;
  return typeof status === "number" && status >= 300 && status <= 599 ? `HTTP ${status}: ${message}` : message;
}

/** A send that failed because the session or the connection is gone (the link ends and is opened again). */
const gone = (e: unknown) => {
  if ((e as { code?: unknown })?.code === 404) return true;
  const text = `${String((e as Error)?.message ?? e)} ${String((e as { cause?: unknown })?.cause ?? "")}`;
  return /ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|ENOTFOUND|EHOSTUNREACH|ENETUNREACH/i.test(text);
};

/**
 * Requests answered 401 together each ask the SDK to refresh the token (one after the other, as
 * their answers arrive): with refresh tokens that rotate, that spends a refresh per request, and a
 * refresh token used twice is refused and the sign-in lost. So one refresh per refresh token, its
 * answer shared; and a refresh asked with the token a refresh has just given (within half its
 * access token's life, at most 5 s) gets that same answer: its access token is fresh.
 */
function refreshOnce(fetch: FetchLike): FetchLike {
  type Answer = { status: number; statusText: string; headers: [string, string][]; body: string };
  const byToken = new Map<string, Promise<Answer>>();
  return async (input, init) => {
    const body = init?.body;
    const token = body instanceof URLSearchParams && body.get("grant_type") === "refresh_token" ? body.get("refresh_token") : null;
    if (!token) return fetch(input, init);
    let answer = byToken.get(token);
    if (!answer) {
      const asked = fetch(input, init).then(async (r) => ({
        status: r.status,
        statusText: r.statusText,
        headers: [...r.headers],
        body: await r.text(),
      }));
      answer = asked;
      byToken.set(token, asked);
      asked.then(
        (a) => {
          const forget = (key: string, ms: number) => void setTimeout(() => byToken.get(key) === asked && byToken.delete(key), ms).unref();
          forget(token, 60_000);
          let given: { refresh_token?: unknown; expires_in?: unknown } = {};
          try {
            given = a.status === 200 ? JSON.parse(a.body) : {};
          } catch {
            // not tokens: nothing to share
          }
          if (typeof given.refresh_token === "string" && given.refresh_token !== token) {
            byToken.set(given.refresh_token, asked);
            const life = typeof given.expires_in === "number" ? given.expires_in * 500 : 5000;
            forget(given.refresh_token, Math.min(5000, life));
          }
        },
        () => byToken.delete(token),
      );
    }
    const a = await answer;
    return new Response(a.body, { status: a.status, statusText: a.statusText, headers: a.headers });
  };
}

export class RemoteLink implements ServerLink {
  readonly pid = null;
  readonly pidStart = null;
  readonly exited: Promise<ExitInfo>;
  private end!: (e: ExitInfo) => void;
  private done = false;
  private readonly listeners = new Set<(m: JSONRPCMessage) => void>();
  private readonly logBuf: string[] = [];
  private readonly stats = { lines: 0, bytes: 0 };
  private readonly secrets: () => string[];
  /** ids of requests sent upstream and not answered yet: one cut off gets an error, once */
  private readonly pending = new Set<string | number>();
  private readonly session = new OneSession();
  private readonly auth: boolean;

  private constructor(
    private readonly transport: Transport & { setProtocolVersion?: (v: string) => void },
    private readonly closeSockets: () => void,
    spec: RemoteSpec,
  ) {
    // Tokens change as they are refreshed: the ones held now are masked.
    this.secrets = () => [...Object.values(spec.headers), ...(spec.auth?.secretValues() ?? [])];
    this.auth = Boolean(spec.auth);
    this.exited = new Promise((r) => (this.end = r));
    transport.onmessage = (m) => {
      // The revision the server agreed to names every later request (the specification's header).
      const version = (m as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof version === "string") transport.setProtocolVersion?.(version);
      const id = (m as { id?: unknown }).id;
      if (!("method" in m) && (typeof id === "string" || typeof id === "number")) this.pending.delete(id);
      this.session.seen(m);
      this.stats.lines++;
      for (const l of this.listeners) {
        try {
          l(m);
        } catch (e) {
          this.log(`[switchboard] could not route a message: ${(e as Error).message}`);
        }
      }
    };
    transport.onerror = (e) => {
      // Only a sign-in that is gone ends the link here: a refused request is its sender's to retry (send).
      if (e instanceof SignInNeeded) return this.finish(CONNECTION_TEXT.signInAgain, true);
      this.log(`[switchboard] ${e.message}`);
      // The legacy transport's stream is the session: once it fails, the session is gone.
      if (spec.transport === "sse" && /SSE error|stream/i.test(e.message)) this.finish(CONNECTION_TEXT.ended(this.clean(e.message)));
    };
    transport.onclose = () => this.finish(CONNECTION_TEXT.ended("closed"));
  }

  /** Resolves and checks the address, then opens the transport (the legacy one waits for its endpoint). */
  static async open(spec: RemoteSpec, o: RemoteOptions): Promise<RemoteLink> {
    const url = new URL(spec.url);
    const target = await resolveUpstream(url, o.allow);
    // The link is made after its fetch: a cut-off answer reaches it through this holder.
    const holder: { link?: RemoteLink } = {};
    const own = upstreamFetch({
      url,
      target,
      headers: spec.headers,
      maxBodyBytes: o.maxBodyBytes,
      headersTimeoutMs: o.headersTimeoutMs,
      answerTimeoutMs: o.answerTimeoutMs,
      bytesPerSecond: o.bytesPerSecond,
      onCut: (body, message) => holder.link?.cut(body, message),
    });
    // MCP messages go to the server's own origin only (the SDK holds them there too). With OAuth,
    // its authorization server may be elsewhere: reached under the same rules, with no header of
    // the connection's; the token the SDK adds goes to the server alone.
    const other = spec.auth ? guardedFetch({ ...o, maxBodyBytes: Math.min(o.maxBodyBytes, AUTH_MAX_BYTES) }) : undefined;
    const routed: FetchLike = (input, init) =>
      other && new URL(input instanceof Request ? input.url : String(input)).origin !== url.origin
        ? other(input, init)
        : own.fetch(input, init);
    const fetch = spec.auth ? refreshOnce(routed) : routed;
    const close = own.close;
    const authProvider = spec.auth;
    const transport =
      spec.transport === "sse"
        ? new SSEClientTransport(url, { fetch, authProvider })
        : new StreamableHTTPClientTransport(url, {
            fetch,
            authProvider,
            // A dropped stream of notifications is opened again a few times; the session itself is the link's.
            reconnectionOptions: {
              maxReconnectionDelay: 30_000,
              initialReconnectionDelay: 1000,
              reconnectionDelayGrowFactor: 2,
              maxRetries: 2,
            },
          });
    const link = new RemoteLink(transport, close, spec);
    holder.link = link;
    try {
      await Promise.race([
        transport.start(),
        new Promise((_, reject) =>
          setTimeout(() => reject(new UpstreamRefused(CONNECTION_TEXT.noAnswer(o.headersTimeoutMs / 1000))), o.headersTimeoutMs).unref(),
        ),
      ]);
    } catch (e) {
      await link.stop();
      if (signInGone(e, Boolean(spec.auth))) throw new SignInNeeded();
      throw new UpstreamRefused(link.clean((e as Error).message));
    }
    return link;
  }

  /** An answer was cut off on its way (too large, too long): the requests it carried and still wait get the reason. */
  private cut(body: string, message: string) {
    let sent: unknown;
    try {
      sent = JSON.parse(body);
    } catch {
      return;
    }
    this.log(`[switchboard] ${message}`);
    for (const m of Array.isArray(sent) ? sent : [sent]) this.fail(m as JSONRPCMessage, CONNECTION_TEXT.refused(message));
  }

  /** The request (if it is one still waiting) gets `message` as its error, as a server's own would read. */
  private fail(m: JSONRPCMessage, message: string) {
    const id = (m as { id?: unknown }).id;
    if (!("method" in m) || (typeof id !== "string" && typeof id !== "number") || !this.pending.delete(id)) return;
    this.transport.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32000, message } });
  }

  /** An upstream's words with the connection's credentials taken out (a hostile server may echo them). */
  private clean(text: string): string {
    return escapeControl(maskSecrets(text.slice(0, 2000), this.secrets())).slice(0, 500);
  }

  private log(line: string) {
    this.logBuf.push(this.clean(line));
    if (this.logBuf.length > LOG_LINES) this.logBuf.splice(0, this.logBuf.length - LOG_LINES);
  }

  private finish(reason: string, final = false) {
    if (this.done) return;
    this.done = true;
    this.log(`[switchboard] ${reason}`);
    this.closeSockets();
    this.end({ code: null, signal: null, reason, ...(final ? { final } : {}) });
  }

  send(m: JSONRPCMessage): void {
    if (this.done) throw new Error("the connection has ended");
    const id = (m as { id?: unknown }).id;
    if (this.session.intercept(m, (answer) => queueMicrotask(() => this.transport.onmessage?.(answer)))) return;
    if ("method" in m && (typeof id === "string" || typeof id === "number")) this.pending.add(id);
    this.deliver(m, false);
  }

  private deliver(m: JSONRPCMessage, retried: boolean): void {
    this.transport.send(m).catch((e: unknown) => {
      // Sent with a token another request was refreshing meanwhile: the SDK refreshes once per
      // transport and refuses the next 401 outright, so the message goes once more with the new token.
      if (this.auth && !retried && !(e instanceof SignInNeeded) && (e as { code?: unknown })?.code === 401 && !this.done)
        return this.deliver(m, true);
      if (signInGone(e, this.auth)) {
        this.fail(m, CONNECTION_TEXT.signInAgain);
        return this.finish(CONNECTION_TEXT.signInAgain, true);
      }
      const why = this.clean(whyOf(e));
      const message = CONNECTION_TEXT.refused(why);
      this.log(`[switchboard] ${message}`);
      this.fail(m, message);
      if (gone(e)) this.finish(CONNECTION_TEXT.ended(why));
    });
  }

  onMessage(cb: (m: JSONRPCMessage) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  onFlood(): void {
    // Answers are bounded one by one as they arrive (upstream-fetch.ts); nothing is read unasked.
  }

  logs(): string[] {
    return [...this.logBuf];
  }

  get running(): boolean {
    return !this.done;
  }

  rssBytes(): number {
    return 0;
  }

  outputStats(): OutputStats {
    return { lines: this.stats.lines, bytes: this.stats.bytes, throttledMs: 0, cpuSeconds: 0, inputHeldBytes: 0 };
  }

  async stop(): Promise<ExitInfo> {
    if (!this.done) {
      this.done = true;
      // Ends the upstream session (the specification's DELETE) before the sockets go.
      await Promise.race([
        (this.transport as { terminateSession?: () => Promise<void> }).terminateSession?.().catch(() => undefined),
        new Promise((r) => setTimeout(r, 1000).unref()),
      ]);
      await this.transport.close().catch(() => undefined);
      this.closeSockets();
      this.end({ code: null, signal: null, reason: "stopped" });
    }
    return this.exited;
  }
}
