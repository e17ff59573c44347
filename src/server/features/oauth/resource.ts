// A deployment's URL is its own protected resource (RFC 8707 `resource`, RFC 9728 metadata).

/** The deployment's MCP endpoint, which is also the audience of its tokens. */
export function resourceUrl(publicUrl: string, proxyId: string): string {
  return `${publicUrl}/${proxyId}/mcp`;
}

/** Where the deployment's protected resource metadata is served (RFC 9728, path inserted after the well-known prefix). */
export function protectedResourceMetadataUrl(publicUrl: string, proxyId: string): string {
  return `${publicUrl}/.well-known/oauth-protected-resource/${proxyId}/mcp`;
}

/** The proxy id a resource URL names, or null when it is not one of this site's deployment URLs. */
export function proxyIdOf(publicUrl: string, resource: string): string | null {
  const prefix = `${publicUrl}/`;
  if (!resource.startsWith(prefix) || !resource.endsWith("/mcp")) return null;
  const id = resource.slice(prefix.length, -"/mcp".length);
  return /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null;
}

/** Scopes this authorization server grants. */
export const OAUTH_SCOPES = ["mcp", "offline_access"] as const;

/** https anywhere, or plain http on a loopback address (native apps, RFC 8252); nothing else receives codes. */
export function allowedRedirectUri(uri: string): boolean {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  if (u.username || u.password || u.hash) return false;
  if (u.protocol === "https:") return true;
  return u.protocol === "http:" && isLoopbackHost(u.hostname);
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
