// An MCP server in a container image that speaks streamable HTTP, seen by the platform as the
// same stream of JSON-RPC messages a stdio server gives: the MCP SDK's streamable HTTP client
// transport, its requests carried over the unix socket of the sandbox's relay (sandbox/relay.ts),
// never the host's network. One upstream session for the deployment, as one stdio process is:
// the gateway's sessions share it as they share a process's stdin and stdout. Each answer's body
// is held to a bound, as a stdout line is.
import http from "node:http";
import { Readable } from "node:stream";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { abortWith } from "../../../net/upstream-fetch.js";
import { IMAGE_MCP_PATH } from "../sources/image/docker.js";
import { asRequest, watchAnswers } from "./answer-watch.js";
import { OneSession } from "./one-session.js";

export interface HttpUpstreamOptions {
  socket: string;
  /** the largest body one answer (or one event of a stream) may have */
  maxBodyBytes: number;
  /** until the server first answers, a refused connection is tried again (it is still starting) for this long */
  startTimeoutMs: number;
  onMessage: (m: JSONRPCMessage) => void;
  onLog: (line: string) => void;
}

/** fetch over a unix socket, each body cut off (the stream errors) beyond `max` bytes. */
export function unixFetch(socket: string, max: number) {
  return (url: string | URL, init?: RequestInit): Promise<Response> =>
    new Promise((resolve, reject) => {
      const u = new URL(url);
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
      const req = http.request(
        { socketPath: socket, path: `${u.pathname}${u.search}`, method: init?.method ?? "GET", headers: { ...headers, host: "localhost" } },
        (res) => {
          let seen = 0;
          res.on("data", (chunk: Buffer) => {
            seen += chunk.length;
            if (seen > max) res.destroy(new Error(`the server's answer is larger than ${max} bytes`));
          });
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
          const status = res.statusCode ?? 502;
          const body =
            status === 204 || status === 304 || init?.method === "HEAD" ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolve(new Response(body, { status, statusText: res.statusMessage, headers: h }));
        },
      );
      req.on("error", reject);
      abortWith(req, init?.signal);
      if (init?.body !== undefined && init.body !== null)
        req.end(typeof init.body === "string" ? init.body : Buffer.from(init.body as ArrayBuffer));
      else req.end();
    });
}

const refused = (e: unknown) =>
  /ECONNREFUSED|ECONNRESET|ENOENT|socket hang up|EPIPE|fetch failed/i.test(
    String((e as Error)?.message ?? e) + String((e as { cause?: unknown })?.cause ?? ""),
  );

export class HttpUpstream {
  private readonly transport: StreamableHTTPClientTransport;
  private answered = false;
  private readonly started = Date.now();
  private closed = false;
  private readonly session = new OneSession();
  /** ids of requests sent and not answered yet: one whose answer ended without it gets an error, once */
  private readonly pending = new Set<string | number>();

  constructor(private readonly o: HttpUpstreamOptions) {
    this.transport = new StreamableHTTPClientTransport(new URL(`http://localhost${IMAGE_MCP_PATH}`), {
      fetch: watchAnswers(unixFetch(o.socket, o.maxBodyBytes), (id) => this.unanswered(id)),
      // The server's own restarts are the runner's business: no reconnection of a dropped stream in a loop.
      reconnectionOptions: { maxReconnectionDelay: 30_000, initialReconnectionDelay: 1000, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
    });
    this.transport.onmessage = (m) => {
      this.answered = true;
      // The revision the server agreed to names every later request (the specification's header).
      const version = (m as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof version === "string") this.transport.setProtocolVersion(version);
      const id = (m as { id?: unknown }).id;
      if (!("method" in m) && (typeof id === "string" || typeof id === "number")) this.pending.delete(id);
      this.session.seen(m);
      o.onMessage(m);
    };
    this.transport.onerror = (e) => o.onLog(`[switchboard] HTTP: ${e.message.slice(0, 500)}`);
    void this.transport.start();
  }

  /** Sends one message; a request the server could not take is answered with an error, as a stdio server's would be. */
  send(message: JSONRPCMessage): void {
    const m = asRequest(message);
    if (this.session.intercept(m, (answer) => queueMicrotask(() => this.o.onMessage(answer)))) return;
    const id = (m as { id?: unknown }).id;
    if ("method" in m && (typeof id === "string" || typeof id === "number")) this.pending.add(id);
    void this.deliver(m);
  }

  /** A request whose POST's answer ended without its answer: nothing more can come for it. */
  private unanswered(id: string | number): void {
    if (!this.pending.delete(id)) return;
    const message = "The server's answer over HTTP ended without answering this request";
    this.o.onLog(`[switchboard] ${message}`);
    this.o.onMessage({ jsonrpc: "2.0", id, error: { code: -32000, message } });
  }

  private async deliver(m: JSONRPCMessage): Promise<void> {
    for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
      try {
        await this.transport.send(m);
        this.answered = true;
        return;
      } catch (e) {
        // Still starting: its port does not answer yet.
        if (!this.closed && !this.answered && refused(e) && Date.now() - this.started < this.o.startTimeoutMs) {
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
        const id = (m as { id?: unknown }).id;
        const message = `The server did not take the request over HTTP: ${String((e as Error).message).slice(0, 300)}`;
        this.o.onLog(`[switchboard] ${message}`);
        if ("method" in m && (typeof id === "string" || typeof id === "number") && this.pending.delete(id))
          this.o.onMessage({ jsonrpc: "2.0", id, error: { code: -32000, message } });
        return;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.transport.close().catch(() => undefined);
  }
}
