import type { Db } from "../../db/client.js";
import { routeOf } from "./repo.js";

// Where a custom domain leads, for the gateway (by Host) and the authorization server (by a
// token's `resource`). A custom domain is served as PUBLIC_URL is: same scheme, same port.

/** https://mcp.example.com (or http://mcp.example.test:8080 where PUBLIC_URL has that scheme and port). */
export function customOrigin(publicUrl: string, domain: string): string {
  const u = new URL(publicUrl);
  return `${u.protocol}//${domain}${u.port ? `:${u.port}` : ""}`;
}

/** The deployment's Streamable HTTP endpoint at the domain: also the `resource` its OAuth tokens are bound to there. */
export const customResourceUrl = (publicUrl: string, domain: string) => `${customOrigin(publicUrl, domain)}/mcp`;

/** The domain a Host header names when it is served as PUBLIC_URL is (its port, if any, is PUBLIC_URL's). */
export function domainOfHost(publicUrl: string, host: string): string | null {
  const u = new URL(publicUrl);
  const m = /^([a-z0-9.-]+?)(?::(\d+))?$/.exec(host.toLowerCase());
  if (!m) return null;
  const standard = u.protocol === "https:" ? "443" : "80";
  if ((m[2] ?? standard) !== (u.port || standard)) return null;
  return m[1]!.replace(/\.$/, "");
}

/** The proxy id of the deployment a verified custom domain's URL names, or null. */
export async function proxyIdForResource(db: Db, publicUrl: string, resource: string): Promise<{ proxyId: string; domain: string } | null> {
  let u: URL;
  try {
    u = new URL(resource);
  } catch {
    return null;
  }
  if (u.pathname !== "/mcp" || u.search || u.hash || u.username || u.password) return null;
  const domain = domainOfHost(publicUrl, u.host);
  if (!domain || resource !== customResourceUrl(publicUrl, domain)) return null;
  const route = await routeOf(db, domain);
  return route?.status === "verified" ? { proxyId: route.proxyId, domain } : null;
}
