import { z } from "zod";

// OAuth connections (docs/product.md#oauth-connections): the consent page, the error page, the
// 'Connected apps' list and the connector how-to. Every text of those screens, in one place.

export const OAUTH_TEXT = {
  // consent page
  consentPageTitle: "Approve access",
  consentTitle: (client: string, server: string) => `Allow ${client} to use ${server}?`,
  consentIntro: (site: string) => `An app is asking to connect to one of your ${site} deployments.`,
  sendsTo: "After you approve, the access goes to",
  sendsToHint: "Approve only if this address belongs to the app you are connecting. An app's name can be imitated; this address cannot.",
  appWebsite: "App's website",
  deployment: "Deployment",
  mayDo: "It will be able to",
  mayUse: "use this deployment's tools, resources and prompts as you",
  mayRefresh: "refresh its access until you revoke it under Connected apps on the API keys page",
  signedInAs: (username: string) => `Signed in as ${username}.`,
  approve: "Approve",
  approving: "Approving...",
  deny: "Deny",
  denying: "Denying...",
  answerFailed: "Your answer could not be sent. Please try again.",
  consentUnavailable: "This app can't be connected",
  backHome: "Go to the home page",
  // error page (invalid client, redirect address not registered, expired sign-in)
  errorTitle: "This connection could not continue",
  errorKinds: {
    invalid_client: "The app is not registered here, or its registration is not valid.",
    invalid_redirect: "The app asked to receive the answer at an address it did not register. For your safety, nothing was sent to it.",
    client_disabled: "This app has been disabled on this server.",
    unauthorized_client: "This app may not use this kind of sign-in.",
    unsupported_response_type: "The app sent a request this server does not support.",
    invalid_request: "The app sent a request this server does not accept.",
    state_mismatch: "The sign-in took too long or started in another browser. Please start again.",
    please_restart_the_process: "The sign-in took too long or started in another browser. Please start again.",
  } as Record<string, string>,
  errorDefault: "The request could not be completed.",
  errorNothingShared: "Nothing was shared with any app. Go back to the app you came from and try connecting again.",
  errorDetails: "Details",
  // Connected apps (on the API keys page)
  connectedTitle: "Connected apps",
  connectedIntro:
    "Apps you connected with OAuth, such as Claude.ai or ChatGPT connectors. Each one can use one deployment as you until you revoke it.",
  loading: "Loading connected apps...",
  empty: "No apps are connected. Add a deployment's URL to Claude.ai or ChatGPT as a custom connector and approve it to see it here.",
  loadFailed: "Failed to load connected apps. Please try again later.",
  sendsToHost: (host: string) => `Answers go to ${host}`,
  deploymentRemoved: "Deployment removed",
  granted: (date: string) => `Granted ${date}`,
  lastUsed: (date: string) => `Last used ${date}`,
  neverUsed: "Never used",
  revoke: "Revoke",
  revokeLabel: (client: string, deployment: string) => `Revoke ${client} on ${deployment}`,
  revokeTitle: (client: string, deployment: string) => `Revoke the access of "${client}" to ${deployment}?`,
  revokeText: "Its access and refresh tokens stop working at once. It can ask for access again later.",
  cancel: "Cancel",
  revoked: (client: string) => `Access for "${client}" revoked`,
  revokeFailed: "Failed to revoke access. Please try again later.",
  // the Deployment panel's connect section
  connectorClaude: "Claude.ai / Claude Desktop (connector)",
  connectorChatGpt: "ChatGPT (connector)",
  connectorStepsClaude: (site: string) =>
    `In Claude, open Settings > Connectors, choose 'Add custom connector' and paste this URL. Claude sends you to ${site}: approve the request.`,
  connectorStepsChatGpt: (site: string) =>
    `In ChatGPT, add a custom connector (Settings > Apps & Connectors) with this URL and OAuth as its authentication. ChatGPT sends you to ${site}: approve the request.`,
  connectorHint: "No API key is needed: the app signs in with OAuth and you approve it once. Revoke it any time under",
} as const;

/** One row of 'Connected apps': a client with access to one deployment (GET /api/auth/connected-apps). */
export const connectedAppView = z.object({
  id: z.string(),
  clientName: z.string(),
  redirectHost: z.string(),
  deployment: z.object({ id: z.string(), serverId: z.string(), proxyId: z.string() }).nullable(),
  grantedAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type ConnectedAppView = z.infer<typeof connectedAppView>;

/** What the consent page shows for an authorization request. */
export const consentView = z.object({
  clientName: z.string(),
  redirectHost: z.string(),
  clientUri: z.string().nullable(),
  deployment: z.object({ serverName: z.string(), serverId: z.string(), url: z.string() }),
  scopes: z.array(z.string()),
});
export type ConsentView = z.infer<typeof consentView>;

/** The parameters of a signed authorization query that only the authorization server reads back. */
const SIGNED_QUERY_PARAMS = ["sig", "exp", "ba_iat", "ba_pl"];

/** A query the authorization server sent to /login or /register to resume its flow afterwards. */
export function isAuthorizeQuery(query: URLSearchParams): boolean {
  return query.has("client_id") && query.has("response_type");
}

/** The request asks the person to sign in again even with a session (`prompt=login` or `create`). */
export function wantsFreshLogin(query: URLSearchParams): boolean {
  return (query.get("prompt") ?? "").split(" ").some((v) => v === "login" || v === "create");
}

/**
 * Where to go after signing in during an authorization request: the authorization endpoint again,
 * with the same request minus its signature and minus `prompt=login`/`create` (just satisfied).
 * Always a path of this site, whatever the query holds.
 */
export function resumeAuthorizeUrl(query: URLSearchParams): string {
  const q = new URLSearchParams(query);
  for (const p of SIGNED_QUERY_PARAMS) q.delete(p);
  q.delete("redirect");
  q.delete("error");
  const prompt = (q.get("prompt") ?? "").split(" ").filter((v) => v && v !== "login" && v !== "create");
  if (prompt.length) q.set("prompt", prompt.join(" "));
  else q.delete("prompt");
  return `/api/auth/oauth2/authorize?${q.toString()}`;
}

/** The authorization request's query alone (for links between /login and /register). */
export function authorizeQueryOf(query: URLSearchParams): string {
  if (!isAuthorizeQuery(query)) return "";
  const q = new URLSearchParams(query);
  q.delete("error");
  q.delete("redirect");
  return q.toString();
}

/** The error texts of the error page, for an `error` code from the authorization server. */
export function oauthErrorText(code: string | null): string {
  return (code && Object.hasOwn(OAUTH_TEXT.errorKinds, code) ? OAUTH_TEXT.errorKinds[code] : undefined) ?? OAUTH_TEXT.errorDefault;
}

/** What the consent answer is posted with: in the browser (fetch) or by the page's action (in-process). */
export interface ConsentCalls {
  post(body: {
    accept: boolean;
    oauth_query: string;
  }): Promise<{ ok: boolean; status: number; data?: { url?: unknown } | null; error?: string; description?: string }>;
  authorize(query: string): Promise<{ ok: boolean; data?: { url?: unknown } | null }>;
}

export type ConsentOutcome = { go: string; query: string } | { go?: undefined; query: string; status: number; description?: string };

const UNSAFE_SCHEME = /^\s*(javascript|data|vbscript):/i;

/**
 * Posts the person's answer with the signed query, as the authorization server expects it. The
 * signed query lives as long as an authorization code: when it ran out while the page was open,
 * the same request is asked for again (a fresh consent query, or, already approved elsewhere, the
 * answer itself) and the answer posted once more. `go` is where the browser goes next (never a
 * script URL); `query` the consent query now in force.
 */
export async function answerConsent(calls: ConsentCalls, accept: boolean, oauthQuery: string, origin: string): Promise<ConsentOutcome> {
  let query = oauthQuery;
  let r = await calls.post({ accept, oauth_query: query });
  if (!r.ok && r.status === 400 && r.error === "invalid_signature") {
    const q = new URLSearchParams(query);
    for (const p of SIGNED_QUERY_PARAMS) q.delete(p);
    const again = await calls.authorize(q.toString());
    const url = again.ok && typeof again.data?.url === "string" ? again.data.url : null;
    if (url) {
      const next = new URL(url, origin);
      if (next.origin !== origin || next.pathname !== "/oauth/consent")
        return UNSAFE_SCHEME.test(url) ? { query, status: 400 } : { go: url, query };
      query = next.search.slice(1);
      r = await calls.post({ accept, oauth_query: query });
    }
  }
  const url = r.ok && typeof r.data?.url === "string" ? r.data.url : null;
  if (url && !UNSAFE_SCHEME.test(url)) return { go: url, query };
  return { query, status: r.ok ? 400 : r.status, description: r.description };
}
