import { z } from "zod";
import { deploymentView } from "./deployments.js";

// Connections (docs/product.md#connections): a remote MCP server its publisher (or the user)
// hosts, reached through the gateway with the user's own credentials, so it gets a Switchboard
// URL with keys, OAuth, pinned definitions, tool selection, playground and request log.

export const CONNECTION_TEXT = {
  title: "Connections",
  intro:
    "Remote MCP servers reached through Switchboard with your own credentials: one key or OAuth for your clients, pinned definitions, tool selection and a request log.",
  connect: "Connect",
  connecting: "Connecting...",
  connectHint:
    "Its publisher hosts it. Connect it through Switchboard: one URL with your API key or OAuth for every client, its definitions pinned, its calls in your request log.",
  connected: "Connection created",
  disconnect: "Remove",
  removed: "Connection removed",
  removeTitle: (name: string) => `Remove the connection "${name}"?`,
  removeText:
    "Clients using its Switchboard URL get no answers, and toolsets that include it lose its tools. Its headers and its sign-in to the remote server are deleted, and so are its request log and tool selection. The remote server itself is not changed.",
  cancel: "Cancel",
  none: "No connections yet. Connect a remote server from its catalogue page, or by URL here.",
  byUrl: "Connect a server by URL",
  nameLabel: "Name",
  nameHint: "Lower-case letters, digits and hyphens: how you will find it here.",
  transportAuto: "Detect from the URL (/sse: SSE)",
  loadFailed: "Failed to load your connections. Please try again later.",
  gone: "This connection was removed.",
  panelTitle: "Connection",
  noTools: "Its tools are listed here once it is connected.",
  editHeaders: "Edit headers",
  editHeadersHint:
    'One per line, "Name: value". "Name:" with nothing after it removes that header; headers you do not name stay. The connection reconnects with them: same URL, grants, pins and request log.',
  saveHeaders: "Save and reconnect",
  headersSaved: "Headers saved: the connection is reconnecting with them.",
  sends: (names: string[]) => `Sends ${names.join(", ")} (values encrypted, never shown again)`,
  urlLabel: "Server URL",
  transportLabel: "Transport",
  headersLabel: "Headers (optional)",
  headersHint: 'One per line, "Name: value" (for example "Authorization: Bearer ..."). Values are encrypted and never shown again.',
  badName: "Names use lower-case letters, digits and hyphens, 1 to 40 characters, starting with a letter or digit",
  badUrl: "Enter the server's http or https URL",
  badHeader: (name: string) => `"${name}" is not a header Switchboard can send`,
  reservedHeader: (name: string) => `"${name}" is set by Switchboard itself`,
  badHeaderLine: (line: string) => `"${line.slice(0, 40)}" is not a "Name: value" header`,
  nameTaken: "You already have a connection with this name.",
  alreadyConnected: "You are already connected to this server. Remove the connection before connecting again.",
  notRemote: "This server is not hosted by its publisher: deploy it instead.",
  notFound: "Connection not found",
  tooMany: (n: number) => `You can have at most ${n} connections.`,
  mustLogin: "You must be logged in to connect a server",
  // The guarded outbound client's refusals (features/runtime/links/remote-link.ts, net/upstream-fetch.ts).
  onlyHttps: "The server's URL must use https (plain http only to addresses the operator allows)",
  refusedAddress: (host: string) =>
    `${host} is on an address Switchboard does not connect to (loopback, private, link-local or this machine's own) unless the operator allows it`,
  noAddress: (host: string) => `${host} does not resolve to any address`,
  otherOrigin: "The remote server pointed to another address: Switchboard sends nothing there",
  tooLarge: (max: number) =>
    `The remote server's answer is larger than ${max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MB` : `${Math.round(max / 1024)} KB`}`,
  noAnswer: (seconds: number) => `The remote server did not answer within ${seconds} s`,
  tooLong: (seconds: number) => `The remote server's answer took longer than ${seconds} s`,
  refused: (why: string) => `The remote server did not take the request: ${why}`,
  ended: (why: string) => `The connection to the remote server ended: ${why}`,
  unanswered: "The remote server's answer ended without answering this request (it answered another id, or nothing)",
  // OAuth to the remote server (features/connections/upstream-oauth.ts).
  oauthLabel: "Sign in to the server (OAuth)",
  oauthHint:
    "For servers that ask you to sign in: you go to the server's own sign-in and consent, then come back here. Switchboard keeps your tokens encrypted, refreshes them, and asks you again only when the server stops accepting them.",
  signingIn: "Opening the server's sign-in...",
  signIn: "Sign in again",
  signInHint: "Sends you to the server's sign-in; the connection keeps its URL, keys, pins and request log.",
  signedIn: "Signed in: the connection is starting.",
  usesOAuth: "Signs in with OAuth (tokens encrypted, refreshed by Switchboard)",
  signInAgain:
    "The remote server no longer accepts this connection's sign-in (it expired or was revoked): sign in again on the connection's page.",
  signInExpired: "This sign-in has expired or was already used. Start again from Connections.",
  signInDeclined: (error: string) => `The server's sign-in did not complete (${error}). Nothing was connected.`,
  signInFailed: (why: string) => `Signing in to the remote server failed: ${why}`,
  noOAuth: "This server does not offer OAuth sign-in (no authorization server found): connect it with headers instead.",
  notOAuth: "This connection does not sign in with OAuth: edit its headers instead.",
  oauthWithAuthorization: 'With OAuth, Switchboard sends the "Authorization" header itself: leave it out.',
} as const;

/** Headers the gateway's transport sets itself: a user's value would break the protocol or the pinning. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "upgrade",
  "keep-alive",
  "te",
  "trailer",
  "expect",
  "proxy-authorization",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
  "cookie",
]);

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/** Headers a connection sends upstream: names are HTTP tokens, values one line, none of the protocol's own. */
export const connectionHeaders = z
  .record(z.string(), z.string().max(4096, "Each header value may be at most 4096 characters"))
  .default({})
  .check((ctx) => {
    const names = Object.keys(ctx.value);
    if (names.length > 20) ctx.issues.push({ code: "custom", message: "At most 20 headers", input: ctx.value });
    for (const [n, v] of Object.entries(ctx.value)) {
      if (!HEADER_NAME.test(n) || /[\r\n\0]/.test(v)) ctx.issues.push({ code: "custom", message: CONNECTION_TEXT.badHeader(n), input: n });
      else if (RESERVED_HEADERS.has(n.toLowerCase()))
        ctx.issues.push({ code: "custom", message: CONNECTION_TEXT.reservedHeader(n), input: n });
    }
  });

/** "Name: value" lines (the page's textarea) as headers; throws the line it cannot read. */
export function parseHeaderLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error(CONNECTION_TEXT.badHeaderLine(line));
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}

/** A catalogue entry's declared key `X_API_KEY` is sent as the header `X-API-KEY`. */
export const headerOfKey = (envVar: string) => envVar.replace(/_/g, "-");

export const TRANSPORTS = ["streamable-http", "sse"] as const;

/** POST /api/connections: a catalogue entry's remote (`server_id`, its keys in `env`), or any URL by `name`. */
export const connectionInput = z
  .object({
    /** an organisation's slug: it owns the connection and its headers (absent or empty: the viewer does) */
    owner: z.string().trim().max(39).nullish(),
    server_id: z.string().min(1).max(200).optional(),
    env: z.record(z.string(), z.string().max(4096, "Each key may be at most 4096 characters")).default({}),
    name: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, CONNECTION_TEXT.badName)
      .optional(),
    url: z
      .string()
      .trim()
      .max(2000)
      .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), CONNECTION_TEXT.badUrl)
      .optional(),
    transport: z.enum(TRANSPORTS).optional(),
    headers: connectionHeaders,
    /** sign in to the server's authorization server: the answer is the consent page to open */
    oauth: z.boolean().optional(),
  })
  .check((ctx) => {
    if (ctx.value.oauth && Object.keys(ctx.value.headers).some((h) => h.toLowerCase() === "authorization"))
      ctx.issues.push({ code: "custom", message: CONNECTION_TEXT.oauthWithAuthorization, input: ctx.value, path: ["headers"] });
    if (ctx.value.server_id) return;
    if (!ctx.value.name) ctx.issues.push({ code: "custom", message: CONNECTION_TEXT.badName, input: ctx.value, path: ["name"] });
    if (!ctx.value.url) ctx.issues.push({ code: "custom", message: CONNECTION_TEXT.badUrl, input: ctx.value, path: ["url"] });
  });
export type ConnectionInput = z.infer<typeof connectionInput>;

/** PUT /api/connections/{id}: header values to set; a name given empty removes that header, the others stay. */
export const connectionHeadersUpdate = z.object({
  headers: z
    .record(z.string().min(1).max(100), z.string().max(4096, "Each header value may be at most 4096 characters"))
    .refine((h) => Object.keys(h).length <= 20, "At most 20 headers"),
});

/** A connection as its owner sees it: a deployment whose source is the remote URL, with its name. */
export const connectionView = deploymentView.extend({
  name: z.string(),
  remote_url: z.string(),
  transport: z.enum(TRANSPORTS),
  /** the names of the headers it sends (never their values) */
  header_names: z.array(z.string()),
  /** the catalogue entry whose remote it is, or null for a URL its owner named */
  entry: z.string().nullable(),
  /** how it proves itself to the server: its headers, or an OAuth sign-in (tokens never shown) */
  auth: z.enum(["headers", "oauth"]),
});
export type ConnectionView = z.infer<typeof connectionView>;

/** The transport a URL most likely speaks: `/sse` is the legacy transport. */
export const transportOf = (url: string): (typeof TRANSPORTS)[number] =>
  URL.canParse(url) && /\/sse\/?$/.test(new URL(url).pathname) ? "sse" : "streamable-http";

/** POST /api/connections/authorized: what the server's consent sent the browser back with. */
export const connectionSignInResult = z.object({
  state: z.string().max(200),
  code: z.string().max(4096).optional(),
  error: z.string().max(200).optional(),
});
