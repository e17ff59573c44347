// Helpers for talking to the gateway over real HTTP: raw requests (any Host/Origin header) and
// official SDK clients with an API key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import http from "node:http";
import type { Client as WebClient } from "./app.js";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

/** One HTTP request with exactly these headers (fetch would not let a test set Host). */
export function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<RawResponse> {
  const u = new URL(url);
  const body = opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: opts.method ?? (body ? "POST" : "GET"),
        headers: { ...(body ? { "content-type": "application/json" } : {}), ...opts.headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text, json: <T>() => JSON.parse(text) as T }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export const MCP_ACCEPT = "application/json, text/event-stream";

/** A minimal Streamable HTTP session by hand: initialize, then JSON-RPC calls with chosen ids. */
export async function rawSession(url: string, key: string, protocolVersion = "2025-06-18", capabilities: Record<string, unknown> = {}) {
  const headers = { authorization: `Bearer ${key}`, accept: MCP_ACCEPT, "content-type": "application/json" };
  const init = await raw(url, {
    headers,
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion, capabilities, clientInfo: { name: "raw", version: "1" } },
    },
  });
  if (init.status !== 200) throw new Error(`initialize: ${init.status} ${init.body}`);
  const sessionId = init.headers["mcp-session-id"] as string;
  const h = { ...headers, "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion };
  await raw(url, { headers: h, body: { jsonrpc: "2.0", method: "notifications/initialized" } });
  return {
    sessionId,
    headers: h,
    init: init.json<{ result: { protocolVersion: string; serverInfo: { name: string } } }>(),
    call: (id: number | string, method: string, params?: unknown) => raw(url, { headers: h, body: { jsonrpc: "2.0", id, method, params } }),
  };
}

export async function sdkClient(
  url: string,
  key: string,
  opts: { legacy?: boolean; capabilities?: Record<string, unknown> } = {},
): Promise<Client> {
  const client = new Client({ name: "switchboard-test", version: "1.0.0" }, { capabilities: opts.capabilities ?? {} });
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  const transport = opts.legacy
    ? new SSEClientTransport(new URL(url), {
        requestInit,
        eventSourceInit: {
          fetch: (u, init) =>
            fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), Authorization: `Bearer ${key}` } }),
        },
      })
    : new StreamableHTTPClientTransport(new URL(url), { requestInit });
  await client.connect(transport);
  return client;
}

/** A new API key of the signed-in client's user, with every scope unless `scopes` says otherwise. */
export async function newApiKey(c: WebClient, name: string, scopes: string[] = ["mcp", "deploy", "servers"]): Promise<string> {
  const r = await c.post("/api/auth/apikeys", { name, scopes });
  if (r.status !== 201) throw new Error(`key: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { apiKey: string }).apiKey;
}

export const textOf = (r: unknown) =>
  (r as { content: { type: string; text?: string }[] }).content.find((c) => c.type === "text")?.text ?? "";

export interface SseEvent {
  id?: string;
  data: string;
  retry?: number;
}

/** A request whose answer is read as server-sent events, one at a time; close() drops the connection. */
export function sseRequest(url: string, opts: { method?: string; headers: Record<string, string>; body?: unknown }) {
  const u = new URL(url);
  const queue: SseEvent[] = [];
  const waiters: ((e: SseEvent | null) => void)[] = [];
  let ended = false;
  let buf = "";
  const deliver = (e: SseEvent | null) => {
    const w = waiters.shift();
    if (w) w(e);
    else if (e) queue.push(e);
  };
  let req!: http.ClientRequest;
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    req = http.request(
      { host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method: opts.method ?? "POST", headers: opts.headers },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          buf += d;
          let i: number;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const e: SseEvent = { data: "" };
            let isEvent = false;
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) continue;
              isEvent = true;
              const [field, ...rest] = line.split(":");
              const value = rest.join(":").replace(/^ /, "");
              if (field === "id") e.id = value;
              else if (field === "data") e.data += value;
              else if (field === "retry") e.retry = Number(value);
            }
            if (isEvent) deliver(e);
          }
        });
        res.on("end", () => {
          ended = true;
          while (waiters.length) deliver(null);
        });
        resolve(res);
      },
    );
    req.on("error", (e) => (ended ? undefined : reject(e)));
  });
  req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  return {
    response,
    /** the next event, or null once the stream ended; rejects after `timeoutMs` */
    next(timeoutMs = 5000): Promise<SseEvent | null> {
      if (queue.length) return Promise.resolve(queue.shift()!);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no event in time")), timeoutMs);
        waiters.push((e) => {
          clearTimeout(timer);
          resolve(e);
        });
      });
    },
    close: () => req.destroy(),
  };
}

/**
 * The official SDK v2 client (@modelcontextprotocol/client) over Streamable HTTP with an API key:
 * `pin` speaks 2026-07-28 only (stateless), `auto` probes with server/discover and falls back to
 * initialize, `default` is the client as shipped (the 2025 initialize handshake).
 */
export async function sdkV2Client(
  url: string,
  key: string,
  mode: "pin" | "auto" | "default",
  opts: { capabilities?: Record<string, unknown>; listChanged?: boolean } = {},
) {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const versionNegotiation = mode === "pin" ? { mode: { pin: "2026-07-28" } } : mode === "auto" ? { mode: "auto" as const } : undefined;
  const client = new Client({ name: "switchboard-test-v2", version: "2.0.0" }, {
    capabilities: opts.capabilities ?? {},
    ...(versionNegotiation ? { versionNegotiation } : {}),
  } as ConstructorParameters<typeof Client>[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}
