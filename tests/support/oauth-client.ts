// The client side of an OAuth flow for tests: a client metadata document server and a redirect
// (callback) server on loopback http, a listener that counts connections (to prove nothing was
// fetched from it), and the official MCP SDK client's OAuthClientProvider kept in memory.
import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

async function listen(server: http.Server | net.Server, host = "127.0.0.1"): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as net.AddressInfo).port;
}

const close = (server: http.Server | net.Server) =>
  new Promise<void>((resolve) => {
    (server as http.Server).closeAllConnections?.();
    server.close(() => resolve());
  });

export interface MetadataServer {
  /** http://127.0.0.1:{port} */
  origin: string;
  port: number;
  /** serves `body` (an object as JSON, a string as is) at `path` */
  set(path: string, body: unknown): void;
  /** answers `path` with a 302 to `location` */
  redirect(path: string, location: string): void;
  /** paths requested, in order */
  hits: string[];
  close(): Promise<void>;
}

/** Serves client metadata documents on loopback http (the app reaches it only with OAUTH_CIMD_ALLOW_HTTP_LOOPBACK=on). */
export async function startMetadataServer(): Promise<MetadataServer> {
  const docs = new Map<string, string>();
  const redirects = new Map<string, string>();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.push(path);
    const to = redirects.get(path);
    if (to) return void res.writeHead(302, { location: to }).end();
    const doc = docs.get(path);
    if (doc === undefined) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" }).end(doc);
  });
  const port = await listen(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    set: (path, body) => docs.set(path, typeof body === "string" ? body : JSON.stringify(body)),
    redirect: (path, location) => redirects.set(path, location),
    hits,
    close: () => close(server),
  };
}

/** A TCP listener that only counts connections: a stand-in for an address the app must never fetch from. */
export async function startTrap(host = "127.0.0.1"): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  const port = await listen(server, host);
  return { port, connections: () => n, close: () => close(server) };
}

export interface CallbackServer {
  /** http://127.0.0.1:{port}/callback */
  redirectUri: string;
  /** the next callback the browser brings (resolves with the full URL) */
  next(timeoutMs?: number): Promise<URL>;
  close(): Promise<void>;
}

/** A native client's loopback redirect endpoint (RFC 8252): records what the browser is sent back with. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const seen: URL[] = [];
  const waiters: ((u: URL) => void)[] = [];
  let origin = "";
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", origin);
    if (u.pathname === "/favicon.ico") return void res.writeHead(204).end(); // the browser asks; a 404 would be a console error
    if (u.pathname !== "/callback") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Signed in</title><h1>You can close this window</h1>");
    const w = waiters.shift();
    if (w) w(u);
    else seen.push(u);
  });
  const port = await listen(server);
  origin = `http://127.0.0.1:${port}`;
  return {
    redirectUri: `${origin}/callback`,
    next: (timeoutMs = 30_000) =>
      seen.length
        ? Promise.resolve(seen.shift()!)
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error("the browser never came back to the client's redirect URI")), timeoutMs);
            waiters.push((u) => {
              clearTimeout(timer);
              resolve(u);
            });
          }),
    close: () => close(server),
  };
}

/** Every request an SDK client made, with the answer's status (to assert the discovery sequence). */
export interface FetchLog {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  entries: { method: string; url: string; status: number; wwwAuthenticate: string | null }[];
}

export function recordingFetch(): FetchLog {
  const entries: FetchLog["entries"] = [];
  return {
    entries,
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      entries.push({
        method: init?.method ?? "GET",
        url: String(url),
        status: res.status,
        wwwAuthenticate: res.headers.get("www-authenticate"),
      });
      return res;
    },
  };
}

/** The SDK's OAuthClientProvider with everything in memory; `authorize` plays the browser. */
export class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier = "";
  lastState = "";
  authorizationUrls: URL[] = [];
  discovery: OAuthDiscoveryState | undefined;
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly opts: {
      redirectUri: string;
      clientName: string;
      clientMetadataUrl?: string;
      authorize?: (url: URL) => void | Promise<void>;
    },
  ) {
    this.clientMetadataUrl = opts.clientMetadataUrl;
  }

  get redirectUrl() {
    return this.opts.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.opts.clientName,
      redirect_uris: [this.opts.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "mcp offline_access",
    };
  }

  state() {
    this.lastState = randomBytes(8).toString("hex");
    return this.lastState;
  }

  clientInformation = () => this.info;
  saveClientInformation = (i: OAuthClientInformationMixed) => void (this.info = i);
  tokens = () => this.stored;
  saveTokens = (t: OAuthTokens) => void (this.stored = t);
  saveCodeVerifier = (v: string) => void (this.verifier = v);
  codeVerifier = () => this.verifier;
  saveDiscoveryState = (s: OAuthDiscoveryState) => void (this.discovery = s);
  discoveryState = () => this.discovery;

  /** What a real client forgets when the server says its credentials are no good. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") this.info = undefined;
    if (scope === "all" || scope === "tokens") this.stored = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = "";
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    await this.opts.authorize?.(url);
  }
}

/** What the tests use of an MCP client library: the official SDK v1 here, v2 in oauth-sdk-v2.ts. */
export interface McpClientLike {
  connect(transport: never): Promise<void>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; text?: string }[] }>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<{ messages: { content: unknown }[] }>;
  close(): Promise<void>;
}

export interface SdkKit {
  label: string;
  client(): McpClientLike;
  /** a Streamable HTTP transport with `provider` as its OAuth client provider */
  transport(url: string, provider: MemoryProvider, log?: FetchLog): unknown;
  /** hands the authorization response to the transport (the code, and what else the library checks) */
  finish(transport: unknown, callback: URL): Promise<void>;
  unauthorized(e: unknown): boolean;
}

export const SDK_V1: SdkKit = {
  label: "@modelcontextprotocol/sdk (v1)",
  client: () => new Client({ name: "oauth-test", version: "1.0.0" }) as unknown as McpClientLike,
  transport: (url, provider, log) =>
    new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, ...(log ? { fetch: log.fetch } : {}) }),
  finish: (t, callback) => (t as StreamableHTTPClientTransport).finishAuth(callback.searchParams.get("code") ?? ""),
  unauthorized: (e) => e instanceof UnauthorizedError,
};

/**
 * The client's whole first connection: the 401, discovery, registration, the authorization URL
 * handed to `approve` (which returns the callback URL the browser was sent to), the code exchange,
 * and a connected client. Checks `state` and `iss` in the authorization response as a careful
 * client does.
 */
export async function connectWithOAuth(
  url: string,
  provider: MemoryProvider,
  approve: (authorizationUrl: URL) => Promise<URL>,
  issuer: string,
  log?: FetchLog,
  kit: SdkKit = SDK_V1,
): Promise<McpClientLike> {
  const first = kit.transport(url, provider, log);
  const probe = kit.client();
  try {
    await probe.connect(first as never);
    return probe; // already authorized
  } catch (e) {
    if (!kit.unauthorized(e)) throw e;
  }
  const authorizationUrl = provider.authorizationUrls.at(-1);
  if (!authorizationUrl) throw new Error("the client never asked to open an authorization URL");
  const callback = await approve(authorizationUrl);
  if (callback.searchParams.get("error")) throw new Error(`authorization refused: ${callback.search}`);
  if (callback.searchParams.get("state") !== provider.lastState) throw new Error(`state mismatch: ${callback.search}`);
  if (callback.searchParams.get("iss") !== issuer) throw new Error(`iss mismatch: ${callback.search} (want ${issuer})`);
  await kit.finish(first, callback);
  const client = kit.client();
  await client.connect(kit.transport(url, provider, log) as never);
  return client;
}
