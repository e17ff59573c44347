import { reaches } from "../orgs/accounts.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Viewer } from "../auth/viewer.js";
import { findClient, findDeploymentByProxyId } from "./repo.js";
import { allowedRedirectUri, isLoopbackHost, proxyIdOf } from "./resource.js";
import { proxyIdForResource } from "../domains/resolve.js";
import { OAUTH_SERVER_TEXT } from "./text.js";

/** What the consent page shows for an authorize request's query, or the reason it cannot be granted. */
export interface ConsentContext {
  clientName: string;
  redirectHost: string;
  clientUri: string | null;
  deployment: { serverName: string; serverId: string; url: string };
  scopes: string[];
}

/** Whether `requested` is one of `registered`, loopback addresses matching on any port (RFC 8252). */
export function redirectRegistered(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let want: URL;
  try {
    want = new URL(requested);
  } catch {
    return false;
  }
  if (want.protocol !== "http:" || !isLoopbackHost(want.hostname)) return false;
  return registered.some((r) => {
    try {
      const u = new URL(r);
      return u.protocol === "http:" && u.hostname === want.hostname && u.pathname === want.pathname && u.search === want.search;
    } catch {
      return false;
    }
  });
}

/**
 * The facts of an authorization request for the person asked to approve it. Shown, not trusted:
 * the approval itself is checked again by the authorization server (signature, owner).
 */
export async function consentContext(
  db: Db,
  config: Config,
  viewer: Viewer,
  query: URLSearchParams,
): Promise<ConsentContext | { error: string }> {
  const client = await findClient(db, query.get("client_id") ?? "");
  if (!client || client.disabled) return { error: OAUTH_SERVER_TEXT.unknownClient };
  const redirect = query.get("redirect_uri") ?? "";
  if (!allowedRedirectUri(redirect) || !redirectRegistered(client.redirectUris, redirect)) return { error: OAUTH_SERVER_TEXT.badRedirect };
  const resources = query.getAll("resource");
  if (resources.length !== 1) return { error: OAUTH_SERVER_TEXT.needsOneDeployment };
  const url = resources[0]!;
  const proxyId = proxyIdOf(config.PUBLIC_URL, url) ?? (await proxyIdForResource(db, config.PUBLIC_URL, url))?.proxyId;
  const dep = proxyId ? await findDeploymentByProxyId(db, proxyId) : undefined;
  if (!dep) return { error: OAUTH_SERVER_TEXT.unknownDeployment };
  // Its owner, or a member of the organisation that owns it (each grants their own client).
  if (!(await reaches(db, viewer.id, dep.ownerId, "use"))) return { error: OAUTH_SERVER_TEXT.notOwner };
  return {
    clientName: client.name?.trim() || client.clientId,
    redirectHost: new URL(redirect).host,
    clientUri: client.uri ?? null,
    deployment: { serverName: dep.serverName, serverId: dep.serverRef, url },
    scopes: (query.get("scope") ?? "").split(" ").filter(Boolean),
  };
}

/**
 * The redirect URI of an authorization request when it is one its client registered: where a
 * sign-in or an answer posted without JavaScript may end up (the page's form-action names it).
 */
export async function registeredRedirect(db: Db, query: URLSearchParams): Promise<string | null> {
  const redirect = query.get("redirect_uri") ?? "";
  const clientId = query.get("client_id");
  if (!clientId || !allowedRedirectUri(redirect)) return null;
  const client = await findClient(db, clientId);
  return client && !client.disabled && redirectRegistered(client.redirectUris, redirect) ? redirect : null;
}
