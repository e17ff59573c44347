import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { OAUTH_SCOPES, protectedResourceMetadataUrl, resourceUrl } from "../oauth/resource.js";
import { sendJson } from "./wire/http.js";
import { findResourceName } from "./repo.js";
import { GATEWAY_TEXT } from "./text.js";

// Each deployment's URL is an OAuth protected resource of its own (RFC 9728): its metadata, at
// {PUBLIC_URL}/.well-known/oauth-protected-resource/{proxy_id}/mcp, names Switchboard as the
// authorization server, and every 401 of the gateway points to it, so that an OAuth-capable MCP
// client can find where to get a token from the deployment's URL alone.

export const METADATA_PREFIX = "/.well-known/oauth-protected-resource/";
const METADATA_ROUTE = /^\/\.well-known\/oauth-protected-resource\/([0-9a-f]{32})\/mcp\/?$/;

/**
 * The WWW-Authenticate value of a 401 (RFC 6750, RFC 9728 section 5.1); `invalid` when a token was
 * sent and refused. `meta`: the metadata URL at a custom domain, where the request came to one.
 */
export const challenge = (publicUrl: string, proxyId: string, invalid: boolean, meta?: string) =>
  `Bearer realm="mcp", resource_metadata="${meta ?? protectedResourceMetadataUrl(publicUrl, proxyId)}"${invalid ? ', error="invalid_token"' : ""}`;

/** The WWW-Authenticate value of a 403: the credential is good but does not reach this (RFC 6750 insufficient_scope). */
export const scopeChallenge = (publicUrl: string, proxyId: string, scope: string, meta?: string) =>
  `Bearer realm="mcp", resource_metadata="${meta ?? protectedResourceMetadataUrl(publicUrl, proxyId)}", error="insufficient_scope", scope="${scope}"`;

/** A document is looked up again after this long (a renamed server, a deleted deployment). */
const CACHE_TTL_MS = 10_000;
const CACHE_MAX = 10_000;
const CORS = { "access-control-allow-origin": "*" };

export class ResourceMetadata {
  private readonly cache = new Map<string, { body: string | null; at: number }>();

  constructor(private readonly d: { config: Config; db: Db }) {}

  /** Node request listener for the metadata URLs; anything else under /.well-known/oauth-protected-resource/ goes to `next`. */
  handle(req: IncomingMessage, res: ServerResponse, url: string, next: RequestListener): void {
    const q = url.indexOf("?");
    const m = METADATA_ROUTE.exec(q < 0 ? url : url.slice(0, q));
    if (!m) return void next(req, res);
    this.answer(req, res, m[1]!, resourceUrl(this.d.config.PUBLIC_URL, m[1]!));
  }

  /** The metadata at a verified custom domain (/.well-known/oauth-protected-resource/mcp): its URL is the resource there. */
  handleCustom(req: IncomingMessage, res: ServerResponse, proxyId: string, origin: string): void {
    this.answer(req, res, proxyId, `${origin}/mcp`);
  }

  private answer(req: IncomingMessage, res: ServerResponse, proxyId: string, resource: string): void {
    const method = req.method ?? "GET";
    if (method === "OPTIONS") {
      res
        .writeHead(204, {
          ...CORS,
          "access-control-allow-methods": "GET, HEAD, OPTIONS",
          "access-control-allow-headers": "*",
          "access-control-max-age": "86400",
        })
        .end();
      return;
    }
    if (method !== "GET" && method !== "HEAD")
      return this.reply(res, 405, JSON.stringify({ error: GATEWAY_TEXT.methodNotAllowed }), method, { allow: "GET, HEAD, OPTIONS" });
    this.document(proxyId, resource).then(
      (body) =>
        body
          ? this.reply(res, 200, body, method, { "cache-control": "public, max-age=60" })
          : this.reply(res, 404, JSON.stringify({ error: GATEWAY_TEXT.notFound }), method),
      () => this.reply(res, 500, JSON.stringify({ error: GATEWAY_TEXT.internal }), method),
    );
  }

  private reply(res: ServerResponse, status: number, body: string, method: string, headers: Record<string, string> = {}) {
    sendJson(res, status, body, { ...CORS, ...headers }, method === "HEAD");
  }

  /** The deployment's metadata as JSON, or null when no deployment has this proxy id; cached briefly either way. */
  private async document(proxyId: string, resource: string): Promise<string | null> {
    const hit = this.cache.get(resource);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.body;
    const name = await findResourceName(this.d.db, proxyId);
    const publicUrl = this.d.config.PUBLIC_URL;
    const body =
      name === undefined
        ? null
        : JSON.stringify({
            resource,
            authorization_servers: [`${publicUrl}/api/auth`],
            bearer_methods_supported: ["header"],
            scopes_supported: OAUTH_SCOPES,
            resource_name: name,
          });
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(resource, { body, at: Date.now() });
    return body;
  }
}
