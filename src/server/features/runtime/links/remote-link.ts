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
import { guardedFetch, resolveUpstream, upstreamFetch, UpstreamRefused, type FetchLike } from "../../../net/upstream-fetch.js";
import { escapeControl, maskSecrets } from "../process/lines.js";
import { asRequest, watchAnswers } from "./answer-watch.js";
import { LinkBase } from "./link-base.js";
import { refreshOnce, SignInNeeded, signInGone } from "./remote-auth.js";
import { OneSession } from "./one-session.js";
import type { ExitInfo } from "../sandbox/index.js";
import type { OutputStats, ServerLink, UpstreamAuth } from "../runner.js";

export interface RemoteSpec {
  url: string;
  transport: "streamable-http" | "sse";
  /** sent with every request; masked in every log line and error */
  headers: Record<string, string>;
  /** signed in with OAuth: the SDK's transport sends its access token and refreshes it on a 401 */
  auth?: UpstreamAuth;
}

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

export class RemoteLink extends LinkBase implements ServerLink {
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
    super();
    // Tokens change as they are refreshed: the ones held now are masked.
    this.secrets = () => [...Object.values(spec.headers), ...(spec.auth?.secretValues() ?? [])];
    this.auth = Boolean(spec.auth);
    transport.onmessage = (m) => {
      // The revision the server agreed to names every later request (the specification's header).
      const version = (m as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof version === "string") transport.setProtocolVersion?.(version);
      const id = (m as { id?: unknown }).id;
      if (!("method" in m) && (typeof id === "string" || typeof id === "number")) this.pending.delete(id);
      this.session.seen(m);
      this.dispatch(m);
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
    const refreshed = spec.auth ? refreshOnce(routed) : routed;
    // Streamable HTTP answers each request in its POST's answer: one that ends without it is answered at once.
    const fetch = spec.transport === "sse" ? refreshed : watchAnswers(refreshed, (id) => holder.link?.unanswered(id));
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

  /** A request whose POST's answer ended without its answer: nothing more can come for it. */
  unanswered(id: string | number): void {
    if (!this.pending.delete(id)) return;
    this.log(`[switchboard] ${CONNECTION_TEXT.unanswered}`);
    this.transport.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32000, message: CONNECTION_TEXT.unanswered } });
  }

  /** The request (if it is one still waiting) gets `message` as its error, as a server's own would read. */
  private fail(m: JSONRPCMessage, message: string) {
    const id = (m as { id?: unknown }).id;
    if (!("method" in m) || (typeof id !== "string" && typeof id !== "number") || !this.pending.delete(id)) return;
    this.transport.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32000, message } });
  }

  /** An upstream's words with the connection's credentials taken out (a hostile server may echo them). */
  protected clean(text: string): string {
    return escapeControl(maskSecrets(text.slice(0, 2000), this.secrets())).slice(0, 500);
  }

  private finish(reason: string, final = false) {
    if (this.done) return;
    this.done = true;
    this.log(`[switchboard] ${reason}`);
    this.closeSockets();
    this.ended({ code: null, signal: null, reason, ...(final ? { final } : {}) });
  }

  send(message: JSONRPCMessage): void {
    if (this.done) throw new Error("the connection has ended");
    const m = asRequest(message);
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

  outputStats(): OutputStats {
    return { lines: this.lines, bytes: 0, throttledMs: 0, cpuSeconds: 0, inputHeldBytes: 0 };
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
      this.ended({ code: null, signal: null, reason: "stopped" });
    }
    return this.exited;
  }
}
