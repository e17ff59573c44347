import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "~/server/config.js";
import type { Db } from "~/server/db/client.js";
import type { Logger } from "~/server/log.js";
import { resourceUrl } from "../../oauth/resource.js";
import {
  apiKeyInQuery,
  hashKey,
  isExpired,
  KEY_PATTERN,
  KEY_PREFIX,
  keyOwner,
  resourceOf,
  type KeyGrant,
} from "../../api-keys/api-keys.js";
import type { KeyRevocations } from "../../api-keys/revocations.js";
import type { Runner } from "../../runtime/runner.js";
import { rpcError } from "../wire/http.js";
import { TokenCheck, type OAuthPort } from "./oauth-tokens.js";
import { TargetCache } from "./targets.js";
import { Verified } from "./verified.js";
import { addressOwner, toolsetGrant, type GatewayTarget, type PinsPort } from "../repo.js";
import { TOOLSET_TOKEN, toolsetTokenHash } from "../../api-keys/toolset-token.js";
import { challenge, METADATA_PREFIX, scopeChallenge } from "../resource-metadata.js";
import { GATEWAY_TEXT } from "../text.js";
import { orgOfAccount, reaches } from "../../orgs/accounts.js";

// Who may reach a deployment through the gateway (docs/gateway.md, "Who may connect"): the Host
// and Origin headers, then the caller's credential (Authorization: Bearer): an API key, or an
// OAuth access token granted for this very deployment; then the deployment the proxy id names,
// which must be the credential owner's. This is the gateway's own authentication: it answers
// before the web app's routes and their session cookies are involved. Every 401 names the
// deployment's protected resource metadata, where OAuth clients learn how to get a token.

/** A verified key is trusted this long without a database round trip; a revocation in this process ends that at once. */
const KEY_TTL_MS = 10_000;
const KEY_CACHE_MAX = 10_000;
/** Longer than any access token the authorization server issues: refused without a lookup. */
const MAX_TOKEN_LENGTH = 512;

/** The signed-in person behind a browser's session cookie (the playground), or undefined. */
export type BrowserSessions = (headers: Headers) => Promise<{ userId: string; sessionId: string } | undefined>;

/** Sessions opened by the playground with the browser's session cookie carry this in place of a key hash. */
export const BROWSER_CALLER = "browser:";
/** Sessions a toolset opens to its members carry this before its credential's hash. */
export const TOOLSET_CALLER = "toolset:";
const TOOLSET_PREFIX = "sbt_";

/** Who is asking: the credential's owner, and the credential itself (hashed); `token` when it is an OAuth access token. */
export interface Caller {
  userId: string;
  keyHash: string;
  token?: string;
  /** the sign-in session of a playground's cookie: its sessions end when it signs out */
  signIn?: string;
  /** when the API key expires (epoch ms): its sessions and streams end then */
  expiresAt?: number;
  /**
   * The organisation's account that owns the deployment, when the caller reached it as a member
   * (features/orgs/accounts.ts): their sessions end when they leave or are removed.
   */
  via?: string;
}

export interface AccessDeps {
  config: Config;
  db: Db;
  log: Logger;
  /** the deployments' pinned definitions (read with each target) */
  pins: Pick<PinsPort, "review">;
  /** the runner of this process, when sessions are served here: a target it no longer runs is looked up again */
  runner?: Pick<Runner, "runs">;
  revocations: KeyRevocations;
  oauth: OAuthPort;
  /** the web app's sign-in sessions: the playground calls the owner's deployment with the page's cookie */
  browserSessions?: BrowserSessions;
}

/**
 * Set on a request that reached a deployment at its verified custom domain (features/domains): that
 * domain's origin. Its Host was matched there; its tokens must be for that URL; no cookie opens it.
 */
export const CUSTOM_ORIGIN = Symbol("custom domain origin");
export type CustomMarked = IncomingMessage & { [CUSTOM_ORIGIN]?: string };

/** The hosts the site itself answers to: PUBLIC_URL's and ALLOWED_ORIGINS', and the machine's own on PORT. */
export function siteHosts(config: Pick<Config, "allowedOrigins" | "PORT">): Set<string> {
  const hosts = new Set<string>();
  for (const o of config.allowedOrigins) {
    const u = new URL(o);
    hosts.add(u.host.toLowerCase());
    // "example.com" and "example.com:443" name the same server
    if (!u.port) hosts.add(`${u.hostname.toLowerCase()}:${u.protocol === "https:" ? 443 : 80}`);
  }
  // The machine itself (health checks, a local reverse proxy) on the port the app listens on.
  for (const h of ["localhost", "127.0.0.1", "[::1]"]) hosts.add(`${h}:${config.PORT}`);
  return hosts;
}

/** The credential of an `Authorization: Bearer ...` header (the scheme in any case), or "". */
export function bearer(authz: string | undefined): string {
  if (!authz || authz.length < 7 || authz.slice(0, 6).toLowerCase() !== "bearer") return "";
  const rest = authz.slice(6);
  const trimmed = rest.trimStart();
  // At least one whitespace between the scheme and the credential, as before (/^bearer\s+/i).
  return trimmed.length < rest.length ? trimmed.trim() : "";
}

export class GatewayAccess {
  private readonly targets: TargetCache;
  private readonly keys: Verified<KeyGrant & { userId: string }>;
  private readonly cookies: Verified<{ userId: string; sessionId: string }>;
  private readonly allowedOrigins: Set<string>;
  private readonly allowedHosts: Set<string>;
  private readonly tokens: TokenCheck;
  private readonly toolsets: Verified<{ userId: string; members: string[] }>;
  private readonly memberships: Verified<true>;

  constructor(private readonly d: AccessDeps) {
    this.targets = new TargetCache(d);
    this.tokens = new TokenCheck(d, KEY_TTL_MS, KEY_CACHE_MAX);
    this.keys = new Verified(d.revocations, KEY_TTL_MS, KEY_CACHE_MAX);
    this.toolsets = new Verified(d.revocations, KEY_TTL_MS, KEY_CACHE_MAX);
    // A member removed or leaving is a revocation: what was remembered of their membership goes at once.
    this.memberships = new Verified(d.revocations, KEY_TTL_MS, KEY_CACHE_MAX);
    // Signing out is a revocation: a remembered sign-in is checked again at once.
    this.cookies = new Verified(d.revocations, KEY_TTL_MS, KEY_CACHE_MAX);
    this.allowedOrigins = new Set(d.config.allowedOrigins);
    this.allowedHosts = siteHosts(d.config);
  }

  /** The deployment and the caller, or undefined once the client has been answered (403, 401 or 404). */
  async admit(
    req: IncomingMessage,
    res: ServerResponse,
    proxyId: string,
    query: string,
  ): Promise<{ target: GatewayTarget; who: Caller } | undefined> {
    // At a custom domain the Host was matched to the deployment already; its own origin may call it too.
    const custom = (req as CustomMarked)[CUSTOM_ORIGIN];
    const host = req.headers.host?.toLowerCase();
    if (!custom && (!host || !this.allowedHosts.has(host))) return void rpcError(res, 403, GATEWAY_TEXT.badHost);
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin) && origin !== custom)
      return void rpcError(res, 403, GATEWAY_TEXT.badOrigin);
    const publicUrl = this.d.config.PUBLIC_URL;
    const meta = custom ? `${custom}${METADATA_PREFIX}mcp` : undefined;
    // The challenges are built only for a refusal: most requests are admitted.
    const ask = () => ({ "www-authenticate": challenge(publicUrl, proxyId, false, meta) });
    if (query && apiKeyInQuery(new URL(`http://x/?${query}`))) return void rpcError(res, 401, GATEWAY_TEXT.keyInQuery, ask());
    const authz = req.headers.authorization;
    const key = bearer(authz);
    if (!custom && !key && authz === undefined && req.headers.cookie && this.fromSiteItself(req))
      return this.admitBrowser(req, res, proxyId, ask);
    if (!key) return void rpcError(res, 401, GATEWAY_TEXT.missingKey, ask());
    const invalid = () => ({ "www-authenticate": challenge(publicUrl, proxyId, true, meta) });
    if (key.startsWith(TOOLSET_PREFIX)) return this.admitToolset(res, proxyId, key, invalid);
    if (!key.startsWith(KEY_PREFIX)) return this.admitToken(res, proxyId, key, invalid, custom ? `${custom}/mcp` : undefined);
    if (!KEY_PATTERN.test(key)) return void rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid());
    const keyHash = hashKey(key);
    const grant = await this.grantOf(key, keyHash);
    if (!grant) return void rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid());
    // Expiry is the cached grant's own time: every process refuses it from that moment.
    if (isExpired(grant)) return void rpcError(res, 401, GATEWAY_TEXT.expiredKey, invalid());
    if (!grant.scopes.includes("mcp"))
      return void rpcError(res, 403, GATEWAY_TEXT.keyScope("mcp"), { "www-authenticate": scopeChallenge(publicUrl, proxyId, "mcp", meta) });
    const { userId } = grant;
    const target = await this.targets.lookup(proxyId);
    // Another user's key: the deployment's existence is not revealed.
    if (!target) return this.notDeployed(res, proxyId, userId);
    const via = await this.reach(userId, target.userId);
    if (via === undefined) return void rpcError(res, 404, GATEWAY_TEXT.notFound);
    // A key limited to other servers: refused here as a token bound elsewhere is.
    if (grant.resources && !grant.resources.includes(resourceOf({ kind: target.serverKind, ref: target.serverRef }))) {
      return void rpcError(res, 403, GATEWAY_TEXT.keyNotForThis, { "www-authenticate": scopeChallenge(publicUrl, proxyId, "mcp", meta) });
    }
    return { target, who: { userId, keyHash, ...(grant.expiresAt ? { expiresAt: grant.expiresAt.getTime() } : {}), ...via } };
  }

  /**
   * An OAuth access token: its grant must be for the URL the request came to exactly (this site's,
   * or the custom domain's: a token for another deployment, or for the other URL of this one, is
   * refused like an unknown one) and its owner's, and not expired.
   */
  private async admitToken(
    res: ServerResponse,
    proxyId: string,
    token: string,
    invalid: () => Record<string, string>,
    customResource?: string,
  ): Promise<{ target: GatewayTarget; who: Caller } | undefined> {
    const refuse = () => void rpcError(res, 401, GATEWAY_TEXT.invalidToken, invalid());
    if (token.length > MAX_TOKEN_LENGTH) return refuse();
    const hash = hashKey(token);
    const grant = await this.tokens.grant(token, hash);
    if (!grant || grant.resource !== (customResource ?? resourceUrl(this.d.config.PUBLIC_URL, proxyId))) return refuse();
    const target = await this.targets.lookup(proxyId);
    if (!target) return this.notDeployed(res, proxyId, grant.userId);
    // Only the owner (or a member of the organisation that owns it) can grant access to a deployment; this holds even if a grant says otherwise.
    const via = await this.reach(grant.userId, target.userId);
    if (via === undefined) return refuse();
    this.tokens.used(grant);
    return { target, who: { userId: grant.userId, keyHash: hash, token, ...via } };
  }

  /**
   * A toolset reaching one of its members (features/runtime/links/toolset-link.ts): its credential opens
   * only the deployments that are its members, of its own owner; anything else is not found.
   */
  private async admitToolset(
    res: ServerResponse,
    proxyId: string,
    token: string,
    invalid: () => Record<string, string>,
  ): Promise<{ target: GatewayTarget; who: Caller } | undefined> {
    const id = TOOLSET_TOKEN.exec(token)?.[1];
    if (!id) return void rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid());
    const hash = toolsetTokenHash(token);
    const grant = await this.toolsets.get(hash, () => toolsetGrant(this.d.db, id, hash));
    if (!grant) return void rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid());
    const target = await this.targets.lookup(proxyId);
    if (!target || target.userId !== grant.userId || !grant.members.includes(target.id))
      return void rpcError(res, 404, GATEWAY_TEXT.notFound);
    return { target, who: { userId: grant.userId, keyHash: `${TOOLSET_CALLER}${hash}` } };
  }

  /**
   * A request the site's own pages sent (the playground): the browser says so with its Origin
   * (one of the site's), or, where it sends none (a same-origin GET), with Sec-Fetch-Site. A page
   * of another site can neither forge these headers nor, with SameSite=Lax cookies, send the
   * cookie on its requests at all; anything else must bring a key or token.
   */
  private fromSiteItself(req: IncomingMessage): boolean {
    if (!this.d.browserSessions) return false;
    const site = req.headers["sec-fetch-site"];
    if (site !== undefined && site !== "same-origin") return false;
    return req.headers.origin !== undefined || site === "same-origin";
  }

  /** The browser's signed-in user, who must own the deployment; checked against the sign-in sessions at least every KEY_TTL_MS. */
  private async admitBrowser(
    req: IncomingMessage,
    res: ServerResponse,
    proxyId: string,
    ask: () => Record<string, string>,
  ): Promise<{ target: GatewayTarget; who: Caller } | undefined> {
    const cookie = req.headers.cookie!;
    const hit = await this.cookies.get(hashKey(cookie), async () => {
      let headers: Headers;
      try {
        headers = new Headers({ cookie });
      } catch {
        return undefined; // a cookie no browser sends: nobody
      }
      return this.d.browserSessions!(headers);
    });
    if (!hit) return void rpcError(res, 401, GATEWAY_TEXT.missingKey, ask());
    const target = await this.targets.lookup(proxyId);
    if (!target) return this.notDeployed(res, proxyId, hit.userId);
    const via = await this.reach(hit.userId, target.userId);
    if (via === undefined) return void rpcError(res, 404, GATEWAY_TEXT.notFound);
    return { target, who: { userId: hit.userId, keyHash: BROWSER_CALLER + hashKey(hit.sessionId), signIn: hit.sessionId, ...via } };
  }

  /**
   * Nothing is deployed at `proxyId`: to the owner of the address (kept after a Stop), a 503 that
   * says it is stopped and how to bring it back; to anyone else, not found (nothing revealed).
   */
  private async notDeployed(res: ServerResponse, proxyId: string, userId: string): Promise<undefined> {
    const owner = await addressOwner(this.d.db, proxyId);
    if (owner !== undefined && (await this.reach(userId, owner)) !== undefined) return void rpcError(res, 503, GATEWAY_TEXT.stopped);
    return void rpcError(res, 404, GATEWAY_TEXT.notFound);
  }

  /**
   * Whether the caller reaches what `ownerId` holds: their own ({}), their organisation's as a member
   * ({ via }: checked against the members at least every KEY_TTL_MS, at once after a removal), or
   * not at all (undefined).
   */
  private async reach(userId: string, ownerId: string): Promise<{ via?: string } | undefined> {
    if (userId === ownerId) return {};
    if (orgOfAccount(ownerId) === undefined) return undefined;
    const ok = await this.memberships.get(`${userId}\n${ownerId}`, async () =>
      (await reaches(this.d.db, userId, ownerId, "use")) ? true : undefined,
    );
    return ok ? { via: ownerId } : undefined;
  }

  /** The key's owner and what it allows: checked on every request, against the database at least every KEY_TTL_MS. */
  private grantOf(key: string, hash: string): Promise<(KeyGrant & { userId: string }) | undefined> {
    return this.keys.get(hash, async () => {
      const v = await keyOwner(this.d.db, key);
      return v ? { userId: v.id, ...v.key } : undefined;
    });
  }

  /** Forget a cached target (its runner could not be reached, it said it does not hold it, its settings changed), or all of them. */
  /** The deployment as the database says now (after a wake: where it runs). */
  refresh(proxyId: string): Promise<GatewayTarget | undefined> {
    return this.targets.fetch(proxyId);
  }

  forget(proxyId?: string): void {
    this.targets.forget(proxyId);
  }
}
