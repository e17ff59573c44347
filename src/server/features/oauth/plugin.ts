import { reaches } from "../orgs/accounts.js";
import { cimd } from "@better-auth/cimd";
import { oauthProvider } from "@better-auth/oauth-provider";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { KeyRevocations } from "../api-keys/revocations.js";
import { cimdTransport, cimdUrlAllowed } from "./cimd-fetch.js";
import { findDeploymentByProxyId, insertDeploymentResource, pruneExpired } from "./repo.js";
import { allowedRedirectUri, isLoopbackHost, OAUTH_SCOPES, proxyIdOf, resourceUrl } from "./resource.js";
import { ensureCustomResource } from "./custom-resources.js";
import { proxyIdForResource } from "../domains/resolve.js";
import { OAUTH_SERVER_TEXT } from "./text.js";

// better-auth's OAuth 2.1 provider, configured for MCP clients (docs/decisions/010-oauth.md):
// authorization code + PKCE S256 only, opaque access tokens stored hashed (revocable on the next
// request), rotating refresh tokens, DCR for public clients and Client ID Metadata Documents.
// The hooks add Switchboard's rules: one deployment per grant, and only its owner may approve.

export interface OAuthDeps {
  config: Config;
  db: Db;
  /** told whenever the plugin revokes tokens, so the gateway's cache of verified tokens starts over */
  revocations?: Pick<KeyRevocations, "revoked">;
}

/** Access tokens live an hour, codes a minute; refresh tokens rotate on every use. */
export const ACCESS_TOKEN_SECONDS = 3600;
export const CODE_SECONDS = 60;
const PRUNE_EVERY_MS = 60 * 60_000;

export function oauthPlugins(deps: OAuthDeps) {
  const allowTestLoopback = deps.config.OAUTH_CIMD_ALLOW_HTTP_LOOPBACK === "on";
  return [
    oauthProvider({
      loginPage: "/login",
      consentPage: "/oauth/consent",
      scopes: [...OAUTH_SCOPES],
      grantTypes: ["authorization_code", "refresh_token"],
      allowDynamicClientRegistration: true,
      allowUnauthenticatedClientRegistration: true,
      // Opaque tokens: the gateway looks each one up, so a revocation holds from the next request.
      disableJwtPlugin: true,
      // Any client may ask for any deployment; the deployment's owner decides at consent.
      enforcePerClientResources: false,
      accessTokenExpiresIn: ACCESS_TOKEN_SECONDS,
      codeExpiresIn: CODE_SECONDS,
    }),
    cimd({
      fetchClientMetadataResource: cimdTransport({ allowTestLoopback }),
      isMetadataDocumentUrlAllowed: cimdUrlAllowed({ allowTestLoopback }),
      metadataProfile: "mcp-2026-07-28",
    }),
  ];
}

type HookCtx = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : typeof v === "string" ? [v] : [];

/** The authorization server's error page: a bad request there never redirects to the client. */
function errorPage(ctx: HookCtx, error: string, description: string): never {
  const url = new URL(ctx.context.options.onAPIError?.errorURL ?? `${ctx.context.baseURL}/error`);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  throw ctx.redirect(url.toString());
}

/**
 * The deployment a `resource` names (its URL here, or at a verified custom domain), with its
 * resource row created if it has none yet (an older deployment, a domain's first token).
 */
async function deploymentOf(deps: OAuthDeps, resource: string) {
  const proxyId = proxyIdOf(deps.config.PUBLIC_URL, resource);
  if (!proxyId) {
    const custom = await proxyIdForResource(deps.db, deps.config.PUBLIC_URL, resource);
    const dep = custom ? await findDeploymentByProxyId(deps.db, custom.proxyId) : undefined;
    if (dep && custom) await ensureCustomResource(deps.db, custom.domain, resource);
    return dep;
  }
  const dep = await findDeploymentByProxyId(deps.db, proxyId);
  if (dep && dep.identifier !== resource)
    await insertDeploymentResource(deps.db, dep.deploymentId, resourceUrl(deps.config.PUBLIC_URL, dep.proxyId));
  return dep;
}

/** Registration: a client sending its answers to loopback http is a native app (RFC 8252); anything but https or loopback is refused. */
function beforeRegister(ctx: HookCtx) {
  const body = (ctx.body ?? {}) as Record<string, unknown>;
  const uris = list(body.redirect_uris);
  if (uris.some((u) => !allowedRedirectUri(u)))
    throw new APIError("BAD_REQUEST", { error: "invalid_redirect_uri", error_description: OAUTH_SERVER_TEXT.onlyHttps });
  const loopback = uris.some((u) => new URL(u).protocol === "http:" && isLoopbackHost(new URL(u).hostname));
  if (body.application_type === undefined && loopback) return { context: { body: { ...body, application_type: "native" } } };
  return undefined;
}

async function beforeAuthorize(deps: OAuthDeps, ctx: HookCtx) {
  const params = {
    ...((ctx.body as Record<string, unknown> | undefined) ?? {}),
    ...((ctx.query as Record<string, unknown> | undefined) ?? {}),
  };
  // A pushed or signed request object is not offered; the plugin refuses those itself.
  const redirect = str(params.redirect_uri);
  if (redirect !== undefined && !allowedRedirectUri(redirect)) errorPage(ctx, "invalid_redirect", OAUTH_SERVER_TEXT.onlyHttps);
  const resources = list(params.resource);
  if (resources.length !== 1) errorPage(ctx, "invalid_target", OAUTH_SERVER_TEXT.needsOneDeployment);
  if (!(await deploymentOf(deps, resources[0]!))) errorPage(ctx, "invalid_target", OAUTH_SERVER_TEXT.unknownDeployment);
}

/** Approving (or denying) is for the deployment's owner only, or a member of the organisation that owns it. */
async function beforeConsent(deps: OAuthDeps, ctx: HookCtx) {
  const body = (ctx.body ?? {}) as Record<string, unknown>;
  const resources = new URLSearchParams(str(body.oauth_query) ?? "").getAll("resource");
  if (resources.length !== 1)
    throw new APIError("BAD_REQUEST", { error: "invalid_target", error_description: OAUTH_SERVER_TEXT.needsOneDeployment });
  const session = await getSessionFromCtx(ctx);
  const dep = await deploymentOf(deps, resources[0]!);
  if (!session || !dep || !(await reaches(deps.db, session.user.id, dep.ownerId, "use")))
    throw new APIError("FORBIDDEN", { error: "access_denied", error_description: OAUTH_SERVER_TEXT.notOwner });
}

/** Switchboard's rules around the plugin's endpoints (better-auth `hooks`). */
export function oauthHooks(deps: OAuthDeps) {
  let prunedAt = Date.now();
  return {
    before: createAuthMiddleware(async (ctx) => {
      if (ctx.path === "/oauth2/register") return beforeRegister(ctx);
      if (ctx.path === "/oauth2/authorize") return beforeAuthorize(deps, ctx);
      if (ctx.path === "/oauth2/consent") return beforeConsent(deps, ctx);
      return undefined;
    }),
    after: createAuthMiddleware(async (ctx) => {
      // Tokens the plugin deleted (revocation, a reused code or refresh token, a burnt code):
      // caches of verified tokens must not keep honouring them.
      const returned = ctx.context.returned;
      if (ctx.path === "/oauth2/revoke") deps.revocations?.revoked();
      else if (
        ctx.path === "/oauth2/token" &&
        returned instanceof APIError &&
        (returned.body as { error?: string } | undefined)?.error === "invalid_grant"
      )
        deps.revocations?.revoked();
      // Registration creates rows anyone can ask for: now and then, expired tokens and clients never granted anything go.
      if (ctx.path === "/oauth2/register" && Date.now() - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        void pruneExpired(deps.db).catch(() => undefined);
      }
    }),
  };
}
