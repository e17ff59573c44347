// An OAuth access token for a deployment, got the way an MCP client gets one, over real HTTP:
// Dynamic Client Registration of a public native client (loopback redirect), authorize with PKCE
// S256 and the deployment's URL as `resource`, Approve on the consent step as the signed-in user
// (`cookie`), then the code exchanged at the token endpoint. Used by the gateway's tests and by
// `npm run bench:gateway`.
import { createHash, randomBytes } from "node:crypto";

export const LOOPBACK_REDIRECT = "http://127.0.0.1:33418/callback";

export interface OAuthTokens {
  clientId: string;
  accessToken: string;
  refreshToken?: string;
  expiresIn: number;
}

async function json(r: Response, what: string): Promise<Record<string, unknown>> {
  const text = await r.text();
  if (!r.ok) throw new Error(`${what}: ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Where an authorization server's answer sends the browser: a redirect, or better-auth's `{ redirect, url }` for a fetch. */
async function redirectOf(r: Response, what: string): Promise<string> {
  const location = r.headers.get("location") ?? (r.ok ? String((await json(r, what)).url ?? "") : "");
  if (!location) throw new Error(`${what}: ${r.status} ${(await r.text()).slice(0, 300)}`);
  return location;
}

/** A public client registered without authentication (RFC 7591); its client_id. */
export async function registerClient(base: string, name = "Gateway test client", redirectUri = LOOPBACK_REDIRECT): Promise<string> {
  const r = await fetch(`${base}/api/auth/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      application_type: "native",
    }),
  });
  return String((await json(r, "register")).client_id);
}

/** The whole flow for `resource` as the user whose session cookie is `cookie`; a new client unless `clientId` is given. */
export async function oauthTokens(
  base: string,
  cookie: string,
  resource: string,
  opts: { clientId?: string; redirectUri?: string } = {},
): Promise<OAuthTokens> {
  const redirectUri = opts.redirectUri ?? LOOPBACK_REDIRECT;
  const clientId = opts.clientId ?? (await registerClient(base, undefined, redirectUri));
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(8).toString("hex");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "mcp offline_access",
    state,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource,
  });
  const a = await fetch(`${base}/api/auth/oauth2/authorize?${query}`, { headers: { cookie }, redirect: "manual" });
  let target = new URL(await redirectOf(a, "authorize"), base);
  // Consent already given for this client and deployment: the code comes straight back.
  if (!target.href.startsWith(redirectUri)) {
    const c = await fetch(`${base}/api/auth/oauth2/consent`, {
      method: "POST",
      headers: { cookie, origin: new URL(base).origin, "content-type": "application/json" },
      body: JSON.stringify({ accept: true, oauth_query: target.search.slice(1) }),
      redirect: "manual",
    });
    target = new URL(await redirectOf(c, "consent"), base);
  }
  const code = target.searchParams.get("code");
  if (!code || target.searchParams.get("state") !== state) throw new Error(`no code in ${target.href}`);
  const t = await fetch(`${base}/api/auth/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    }),
  });
  const body = await json(t, "token");
  return {
    clientId,
    accessToken: String(body.access_token),
    refreshToken: body.refresh_token === undefined ? undefined : String(body.refresh_token),
    expiresIn: Number(body.expires_in),
  };
}
