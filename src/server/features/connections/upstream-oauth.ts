import { createHash, randomBytes } from "node:crypto";
import { auth, extractWWWAuthenticateParams, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { CONNECTION_TEXT, type ConnectionInput } from "~/shared/connections.js";
import type { Config } from "../../config.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { guardedFetch, resolveUpstream, UpstreamRefused, type FetchLike } from "../../net/upstream-fetch.js";
import { escapeControl } from "../runtime/process/lines.js";
import { SignInNeeded } from "../runtime/links/remote-auth.js";
import type { UpstreamAuth } from "../runtime/runner.js";
import { parseAllowList } from "../runtime/sandbox/cidr.js";
import { insertSignIn, takeSignIn } from "./repo.js";
import type { SecretBox } from "../deployments/secret-box.js";
import type { Db } from "../../db/client.js";

// OAuth to a connection's remote server (docs/gateway.md#oauth-to-the-remote-server): the MCP
// SDK's client does the protocol (protected-resource and authorization-server discovery, a client
// ID metadata document or dynamic registration, PKCE and `resource`, the code exchange, refresh);
// Switchboard keeps what it learns, sealed with SECRETS_KEY, one grant per connection and so per
// user. The browser goes through the server's own consent; the runner that holds the connection
// sends its access token, refreshes it when the server answers 401, and stores the new tokens back
// (fenced, like every write of a runner). When the refresh is refused, the connection fails with
// 'sign in again' instead of reconnecting. Every request goes through the guarded outbound fetch:
// wherever a server's metadata points, the same addresses are refused as for the server itself.

/** What a connection keeps of its sign-in, sealed in `deployments.upstream_grant`. */
export interface UpstreamGrant {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
}

/** A sign-in under way, sealed in `connection_authorizations` until the browser comes back. */
interface PendingSignIn {
  /** the connection to create (its input), or the one signing in again */
  input?: ConnectionInput;
  connectionId?: string;
  url: string;
  verifier: string;
  grant: UpstreamGrant;
}

const SIGN_IN_TTL_MS = 10 * 60_000;
const AUTH_MAX_BYTES = 1024 * 1024;

/** the page the server's consent sends the browser back to (two segments: no connection's name can take it) */
export const callbackPath = "/connections/oauth/callback";
export const clientDocumentPath = "/oauth/connections-client.json";

/** Where the browser comes back, and (with an https PUBLIC_URL) the client ID metadata document's URL. */
export const callbackUrl = (publicUrl: string) => `${publicUrl.replace(/\/$/, "")}${callbackPath}`;
const clientDocumentUrl = (publicUrl: string) =>
  publicUrl.startsWith("https://") ? `${publicUrl.replace(/\/$/, "")}${clientDocumentPath}` : undefined;

/** How Switchboard presents itself to a remote server's authorization server. */
export function clientMetadata(publicUrl: string): OAuthClientMetadata {
  return {
    client_name: "Switchboard",
    client_uri: publicUrl,
    redirect_uris: [callbackUrl(publicUrl)],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** The client ID metadata document served at `clientDocumentPath`: its URL is Switchboard's client ID. */
export function clientDocument(publicUrl: string): (OAuthClientMetadata & { client_id: string }) | undefined {
  const id = clientDocumentUrl(publicUrl);
  return id ? { client_id: id, ...clientMetadata(publicUrl) } : undefined;
}

type OAuthConfig = Pick<
  Config,
  "PUBLIC_URL" | "SANDBOX_EGRESS_ALLOW" | "CONNECTION_TIMEOUT_MS" | "CONNECTION_ANSWER_TIMEOUT_MS" | "DEPLOY_OUTPUT_BYTES_PER_SECOND"
>;

/** The guarded fetch OAuth uses: any origin, checked addresses only, small answers, no connection header. */
export function oauthFetch(config: OAuthConfig): FetchLike {
  return guardedFetch({
    allow: parseAllowList(config.SANDBOX_EGRESS_ALLOW),
    maxBodyBytes: AUTH_MAX_BYTES,
    headersTimeoutMs: config.CONNECTION_TIMEOUT_MS,
    answerTimeoutMs: Math.min(config.CONNECTION_ANSWER_TIMEOUT_MS, 60_000),
    bytesPerSecond: config.DEPLOY_OUTPUT_BYTES_PER_SECOND,
  });
}

/**
 * The SDK's view of one connection's grant. Interactive (in the web process, with a state) it
 * captures the authorization URL to send the browser to; in the runner a new authorization is
 * impossible, so being asked for one means the sign-in is gone.
 */
class GrantProvider implements UpstreamAuth {
  authorizationUrl?: URL;
  private verifier?: string;

  constructor(
    readonly grant: UpstreamGrant,
    private readonly o: { publicUrl: string; state?: string; verifier?: string; save?: (g: UpstreamGrant) => Promise<void> },
  ) {
    this.verifier = o.verifier;
  }

  get redirectUrl() {
    return callbackUrl(this.o.publicUrl);
  }
  get clientMetadataUrl() {
    return clientDocumentUrl(this.o.publicUrl);
  }
  get clientMetadata() {
    return clientMetadata(this.o.publicUrl);
  }
  state() {
    return this.o.state ?? "";
  }
  clientInformation() {
    return this.grant.client;
  }
  async saveClientInformation(client: OAuthClientInformationMixed) {
    this.grant.client = client;
    await this.o.save?.(this.grant);
  }
  tokens() {
    return this.grant.tokens;
  }
  async saveTokens(tokens: OAuthTokens) {
    this.grant.tokens = tokens;
    await this.o.save?.(this.grant);
  }
  redirectToAuthorization(url: URL) {
    if (this.o.state === undefined) throw new SignInNeeded();
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new SignInNeeded();
    return this.verifier;
  }
  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") delete this.grant.client;
    if (scope === "all" || scope === "tokens") delete this.grant.tokens;
    if (scope === "all" || scope === "discovery") delete this.grant.discovery;
    if (scope === "verifier") this.verifier = undefined;
    await this.o.save?.(this.grant);
  }
  discoveryState() {
    return this.grant.discovery;
  }
  async saveDiscoveryState(state: OAuthDiscoveryState) {
    this.grant.discovery = state;
    await this.o.save?.(this.grant);
  }
  secretValues(): string[] {
    const t = this.grant.tokens;
    const secret = (this.grant.client as { client_secret?: string } | undefined)?.client_secret;
    return [t?.access_token, t?.refresh_token, secret].filter((x): x is string => typeof x === "string" && x.length >= 4);
  }
}

export const sealGrant = (box: SecretBox, g: UpstreamGrant) => box.seal({ grant: JSON.stringify(g) });
function openGrant(box: SecretBox, sealed: string | null): UpstreamGrant | undefined {
  if (!sealed) return undefined;
  try {
    return JSON.parse(box.open(sealed).grant ?? "null") ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * The runner's provider for one connection: its grant, and where a refreshed one is stored (the
 * runner's fenced write). Undefined when there is no readable grant (the owner signs in again).
 */
export function runnerAuth(
  box: SecretBox,
  publicUrl: string,
  sealed: string | null,
  store: (sealed: string) => Promise<unknown>,
): UpstreamAuth | undefined {
  const grant = openGrant(box, sealed);
  if (!grant?.tokens) return undefined;
  return new GrantProvider(grant, { publicUrl, save: async (g) => void (await store(sealGrant(box, g))) });
}

/** An authorization server's words, for the user: one line, no control characters, short. */
const said = (e: unknown) => escapeControl(String((e as Error)?.message ?? e).slice(0, 300));

export interface SignInDeps {
  db: Db;
  config: OAuthConfig;
  box: SecretBox;
}

/**
 * Starts a sign-in: finds the server's authorization server, registers Switchboard with it where
 * needed, and keeps the PKCE verifier and the rest for the callback. Answers the URL of the
 * server's consent page, where the user's browser goes next.
 */
export async function beginSignIn(
  deps: SignInDeps,
  userId: string,
  what: { url: string; input?: ConnectionInput; connectionId?: string },
): Promise<string> {
  const fetchFn = oauthFetch(deps.config);
  const url = new URL(what.url);
  try {
    await resolveUpstream(url, parseAllowList(deps.config.SANDBOX_EGRESS_ALLOW));
  } catch (e) {
    if (e instanceof UpstreamRefused) throw new AppError("validation_failed", e.message);
    throw e;
  }
  // The server's 401 names its protected-resource metadata (and the scope it wants), when it does.
  let resourceMetadataUrl: URL | undefined;
  let scope: string | undefined;
  try {
    const probe = await fetchFn(url, { method: "GET", headers: { accept: "text/event-stream, application/json" } });
    if (probe.status === 401) ({ resourceMetadataUrl, scope } = extractWWWAuthenticateParams(probe));
    await probe.body?.cancel().catch(() => undefined);
  } catch (e) {
    throw new AppError("validation_failed", CONNECTION_TEXT.signInFailed(said(e)));
  }
  const state = randomBytes(24).toString("base64url");
  const provider = new GrantProvider({}, { publicUrl: deps.config.PUBLIC_URL, state });
  try {
    await auth(provider, { serverUrl: url, resourceMetadataUrl, scope, fetchFn });
  } catch (e) {
    const why = said(e);
    throw new AppError(
      "validation_failed",
      /metadata|discover|404/i.test(why) ? CONNECTION_TEXT.noOAuth : CONNECTION_TEXT.signInFailed(why),
    );
  }
  if (!provider.authorizationUrl) throw new AppError("validation_failed", CONNECTION_TEXT.noOAuth);
  const pending: PendingSignIn = {
    input: what.input,
    connectionId: what.connectionId,
    url: what.url,
    verifier: provider.codeVerifier(),
    grant: provider.grant,
  };
  await insertSignIn(deps.db, {
    stateHash: hashState(state),
    userId,
    sealed: deps.box.seal({ pending: JSON.stringify(pending) }),
    expiresAt: new Date(Date.now() + SIGN_IN_TTL_MS),
  });
  return provider.authorizationUrl.href;
}

const hashState = (state: string) => createHash("sha256").update(state).digest("base64url");

/**
 * The browser came back from the server's consent: the sign-in the state names (this user's, used
 * once, not expired) is finished by exchanging the code. Answers the sealed grant and what to do
 * with it (create the connection, or restart the one signing in again).
 */
export async function finishSignIn(
  deps: SignInDeps,
  userId: string,
  back: { state: string; code?: string; error?: string },
): Promise<{ grant: string; input?: ConnectionInput; connectionId?: string }> {
  const sealed = back.state ? await takeSignIn(deps.db, hashState(back.state), userId) : undefined;
  if (!sealed) throw new AppError("validation_failed", CONNECTION_TEXT.signInExpired);
  if (back.error || !back.code)
    throw new AppError("validation_failed", CONNECTION_TEXT.signInDeclined(escapeControl((back.error ?? "no code").slice(0, 100))));
  const pending = JSON.parse(deps.box.open(sealed).pending ?? "{}") as PendingSignIn;
  const provider = new GrantProvider(pending.grant, { publicUrl: deps.config.PUBLIC_URL, verifier: pending.verifier });
  try {
    await auth(provider, { serverUrl: pending.url, authorizationCode: back.code, fetchFn: oauthFetch(deps.config) });
  } catch (e) {
    throw new AppError("validation_failed", CONNECTION_TEXT.signInFailed(said(e)));
  }
  return { grant: sealGrant(deps.box, provider.grant), input: pending.input, connectionId: pending.connectionId };
}

/**
 * The grant is being deleted (its connection removed, its account deleted): the server's
 * revocation endpoint (RFC 7009) is told, where its metadata names one. Best effort: a server that
 * does not answer does not keep the connection from going.
 */
export async function revokeGrant(deps: { config: OAuthConfig; box: SecretBox; log?: Logger }, sealed: string | null): Promise<void> {
  const grant = openGrant(deps.box, sealed);
  // OAuth metadata names it; OpenID metadata (the SDK's other shape) may too.
  const endpoint = (grant?.discovery?.authorizationServerMetadata as { revocation_endpoint?: unknown } | undefined)?.revocation_endpoint;
  const client = grant?.client;
  if (!grant?.tokens || typeof endpoint !== "string" || !client) return;
  const fetchFn = oauthFetch(deps.config);
  const tokens: [string, string][] = [];
  if (grant.tokens.refresh_token) tokens.push([grant.tokens.refresh_token, "refresh_token"]);
  tokens.push([grant.tokens.access_token, "access_token"]);
  for (const [token, hint] of tokens) {
    const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    const secret = (client as { client_secret?: string }).client_secret;
    if (secret) {
      body.delete("client_id");
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
    }
    try {
      const r = await fetchFn(endpoint, { method: "POST", headers, body, signal: AbortSignal.timeout(5000) });
      await r.body?.cancel().catch(() => undefined);
      if (!r.ok) deps.log?.warn({ status: r.status }, "the remote server's authorization server did not revoke a token");
    } catch (e) {
      deps.log?.warn({ reason: said(e) }, "could not reach the remote server's revocation endpoint");
    }
  }
}
