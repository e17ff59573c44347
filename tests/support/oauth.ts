// Drives Switchboard's OAuth authorization server the way an MCP client and a browser would, over
// real HTTP: PKCE, Dynamic Client Registration, the authorize redirect, the consent JSON the consent
// page posts, and the token endpoint. Nothing here knows the server's internals.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { CookieJar } from "./cookies.js";

export const b64url = (b: Buffer) => b.toString("base64url");
export const s256 = (s: string) => createHash("sha256").update(s).digest("base64url");

/** A fresh PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: s256(verifier) };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** the Location header, or the `url` of a JSON redirect answer (what the plugin gives fetch callers) */
  location: string | null;
  json<T = Record<string, unknown>>(): T;
}

export interface SendOptions {
  method?: string;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  cookie?: string;
  /** the Origin header; `false` sends none (a non-browser client). Default on writes: the URL's own origin */
  origin?: string | false;
  /** send it as a browser's top-level navigation does (Sec-Fetch-Mode: navigate), not as a script's fetch */
  navigate?: boolean;
}

/**
 * One request with exactly these headers, no redirects followed (node:http: fetch would add
 * Sec-Fetch-Mode: cors, which makes the authorization server answer as to a script).
 */
export function send(url: string, opts: SendOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers["content-type"] ??= "application/x-www-form-urlencoded";
    body = new URLSearchParams(opts.form).toString();
  }
  const method = opts.method ?? (body === undefined ? "GET" : "POST");
  // node:http sends a DELETE's body unframed unless told its length.
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  if (method !== "GET" && opts.origin !== false) headers.origin ??= opts.origin ?? new URL(url).origin;
  if (opts.navigate)
    Object.assign(headers, { "sec-fetch-mode": "navigate", "sec-fetch-dest": "document", accept: "text/html,application/xhtml+xml" });
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const fromBody =
          parsed && typeof parsed === "object" && typeof (parsed as { url?: unknown }).url === "string"
            ? (parsed as { url: string }).url
            : null;
        resolve({
          status: res.statusCode!,
          headers: h,
          text,
          location: h.get("location") ?? fromBody,
          json: <T>() => JSON.parse(text) as T,
        });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A person's browser session on the app, kept in a cookie jar. */
export class HttpUser {
  readonly jar = new CookieJar();
  id = "";
  constructor(
    readonly base: string,
    readonly email: string,
    readonly password: string,
  ) {}

  async request(method: string, path: string, opts: SendOptions = {}): Promise<Answer> {
    const url = path.startsWith("http") ? path : `${this.base}${path}`;
    const a = await send(url, { ...opts, method, cookie: this.jar.header() || undefined });
    this.jar.store({ headers: a.headers } as Response);
    return a;
  }

  get = (path: string, opts?: SendOptions) => this.request("GET", path, opts);
  /** a top-level navigation of the browser (what opening the authorization URL is) */
  navigate = (path: string) => this.request("GET", path, { navigate: true });
  /** the page's script posting JSON, as the consent page does */
  post = (path: string, json: unknown = {}, opts: SendOptions = {}) =>
    this.request("POST", path, { ...opts, json, headers: { "sec-fetch-mode": "cors", ...opts.headers } });
  del = (path: string, opts?: SendOptions) => this.request("DELETE", path, opts);

  async signIn(): Promise<void> {
    const r = await this.post("/api/auth/sign-in/email", { email: this.email, password: this.password });
    if (r.status !== 200) throw new Error(`sign-in ${this.email}: ${r.status} ${r.text}`);
    this.id = (await this.get("/api/auth/get-session")).json<{ user: { id: string } }>().user.id;
  }
}

/** Registers an account over HTTP, confirms it through the development outbox, and signs in. */
export async function signUpOverHttp(base: string, email: string, password = "password123"): Promise<HttpUser> {
  const u = new HttpUser(base, email, password);
  const r = await u.post("/api/auth/sign-up/email", { email, password, name: email.split("@")[0] });
  if (r.status !== 200) throw new Error(`sign-up ${email}: ${r.status} ${r.text}`);
  const mails = (await send(`${base}/dev/outbox.json`)).json<{ to: string; text: string }[]>();
  const mail = mails.findLast((m) => m.to.includes(email));
  const link = new URL(/https?:\/\/\S+/.exec(mail?.text ?? "")?.[0] ?? "about:blank");
  if (link.protocol === "about:") throw new Error(`no confirmation mail for ${email}`);
  await u.get(`${link.pathname}${link.search}`);
  await u.signIn();
  return u;
}

export const NATIVE_REDIRECT = "http://127.0.0.1:33418/callback";

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  [k: string]: unknown;
}

/** Dynamic Client Registration (RFC 7591) of a public client, as an MCP client does it: no session, no Origin. */
export async function registerClient(base: string, metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const r = await send(`${base}/api/auth/oauth2/register`, {
    origin: false,
    json: {
      client_name: "Test MCP client",
      redirect_uris: [NATIVE_REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...metadata,
    },
  });
  if (r.status !== 200 && r.status !== 201) throw new Error(`register: ${r.status} ${r.text}`);
  return r.json<RegisteredClient>();
}

export interface AuthorizeParams {
  clientId: string;
  resource: string | string[] | null;
  redirectUri?: string;
  scope?: string;
  state?: string;
  challenge?: string | null;
  method?: string | null;
  extra?: Record<string, string>;
}

/** The authorization request URL (PKCE S256 unless `challenge`/`method` say otherwise). */
export function authorizeUrl(base: string, p: AuthorizeParams & { challenge: string | null }): string {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: p.clientId,
    redirect_uri: p.redirectUri ?? NATIVE_REDIRECT,
    scope: p.scope ?? "mcp offline_access",
  });
  if (p.state !== undefined) q.set("state", p.state);
  if (p.challenge) q.set("code_challenge", p.challenge);
  if (p.method !== null) q.set("code_challenge_method", p.method ?? "S256");
  for (const r of p.resource === null ? [] : Array.isArray(p.resource) ? p.resource : [p.resource]) q.append("resource", r);
  for (const [k, v] of Object.entries(p.extra ?? {})) q.set(k, v);
  return `${base}/api/auth/oauth2/authorize?${q}`;
}

/** What the consent page posts: `{ accept, oauth_query }` with the query the authorize step put on /oauth/consent. */
export function consentQuery(consentLocation: string): string {
  return new URL(consentLocation, "http://x").search.slice(1);
}

export interface CodeFlow {
  verifier: string;
  state: string;
  /** where the authorize step sent the browser (the consent page, or the client when consent was already given) */
  authorize: Answer;
  /** the consent answer, when consent was asked */
  consent?: Answer;
  /** the client's callback URL with code, state, iss (or an error) */
  callback: URL | null;
  code: string;
}

/** Authorize as `user` and approve on the consent "page" (its JSON post); the code the client receives. */
export async function codeFlow(user: HttpUser, p: Omit<AuthorizeParams, "challenge" | "method">, accept = true): Promise<CodeFlow> {
  const { verifier, challenge } = pkce();
  const state = p.state ?? `st-${b64url(randomBytes(6))}`;
  const authorize = await user.navigate(authorizeUrl(user.base, { ...p, state, challenge }));
  const loc = authorize.location;
  if (!loc) throw new Error(`authorize gave no redirect: ${authorize.status} ${authorize.text.slice(0, 300)}`);
  const first = new URL(loc, user.base);
  if (first.pathname !== "/oauth/consent")
    return { verifier, state, authorize, callback: first, code: first.searchParams.get("code") ?? "" };
  const consent = await user.post("/api/auth/oauth2/consent", { accept, oauth_query: consentQuery(loc) });
  const callback = consent.location ? new URL(consent.location, user.base) : null;
  return { verifier, state, authorize, consent, callback, code: callback?.searchParams.get("code") ?? "" };
}

/** POST to the token endpoint as a public client would (form body, no Origin, no cookie). */
export function token(base: string, form: Record<string, string>): Promise<Answer> {
  return send(`${base}/api/auth/oauth2/token`, { form, origin: false });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

/** The code exchanged for tokens (expects 200). */
export async function exchange(
  base: string,
  clientId: string,
  flow: CodeFlow,
  resource: string,
  redirectUri = NATIVE_REDIRECT,
): Promise<Tokens> {
  const r = await token(base, {
    grant_type: "authorization_code",
    code: flow.code,
    code_verifier: flow.verifier,
    client_id: clientId,
    redirect_uri: redirectUri,
    resource,
  });
  if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
  return r.json<Tokens>();
}

/** An MCP initialize on a deployment URL with a bearer value: the gateway's answer. */
export function mcpInitialize(url: string, bearer?: string): Promise<Answer> {
  return send(url, {
    origin: false,
    headers: { accept: "application/json, text/event-stream", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    json: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "oauth-test", version: "1" } },
    },
  });
}
