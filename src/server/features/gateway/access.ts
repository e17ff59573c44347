import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { apiKeyInQuery, hashKey, KEY_PATTERN, viewerFromApiKey } from "../publishers/api-keys.js";
import type { KeyRevocations } from "../publishers/revocations.js";
import type { Runner } from "../runtime/runner.js";
import { rpcError } from "./http.js";
import { findDeploymentByProxy, type GatewayTarget } from "./repo.js";
import { GATEWAY_TEXT } from "./text.js";

// Who may reach a deployment through the gateway (docs/gateway.md, "Who may connect"): the Host
// and Origin headers, then the caller's API key (Authorization: Bearer), then the deployment the
// proxy id names, which must be the key owner's. This is the gateway's own authentication: it
// answers before the web app's routes and their session cookies are involved.

const TARGET_TTL_MS = 5000;
/** A verified key is trusted this long without a database round trip; a revocation in this process ends that at once. */
const KEY_TTL_MS = 10_000;
const KEY_CACHE_MAX = 10_000;

/** Who is asking: the key's owner, and the key itself (hashed). */
export interface Caller {
  userId: string;
  keyHash: string;
}

export interface AccessDeps {
  config: Config;
  db: Db;
  runner: Pick<Runner, "runs">;
  revocations: KeyRevocations;
}

export class GatewayAccess {
  private readonly targets = new Map<string, { target: GatewayTarget; at: number }>();
  private readonly keys = new Map<string, { userId: string; at: number; generation: number }>();
  private readonly allowedOrigins: Set<string>;
  private readonly allowedHosts = new Set<string>();

  constructor(private readonly d: AccessDeps) {
    this.allowedOrigins = new Set(d.config.allowedOrigins);
    for (const o of d.config.allowedOrigins) {
      const u = new URL(o);
      this.allowedHosts.add(u.host.toLowerCase());
      // "example.com" and "example.com:443" name the same server
      if (!u.port) this.allowedHosts.add(`${u.hostname.toLowerCase()}:${u.protocol === "https:" ? 443 : 80}`);
    }
    // The machine itself (health checks, a local reverse proxy) on the port the app listens on.
    for (const h of ["localhost", "127.0.0.1", "[::1]"]) this.allowedHosts.add(`${h}:${d.config.PORT}`);
  }

  /** The deployment and the caller, or undefined once the client has been answered (403, 401 or 404). */
  async admit(req: IncomingMessage, res: ServerResponse, proxyId: string, query: string): Promise<{ target: GatewayTarget; who: Caller } | undefined> {
    const host = req.headers.host?.toLowerCase();
    if (!host || !this.allowedHosts.has(host)) return void rpcError(res, 403, GATEWAY_TEXT.badHost);
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin)) return void rpcError(res, 403, GATEWAY_TEXT.badOrigin);
    const challenge = { "www-authenticate": 'Bearer realm="mcp"' };
    if (query && apiKeyInQuery(new URL(`http://x/?${query}`))) return void rpcError(res, 401, GATEWAY_TEXT.keyInQuery, challenge);
    const authz = req.headers.authorization;
    const key = authz && /^bearer\s+/i.test(authz) ? authz.replace(/^bearer\s+/i, "").trim() : "";
    if (!key) return void rpcError(res, 401, GATEWAY_TEXT.missingKey, challenge);
    const invalid = { "www-authenticate": 'Bearer realm="mcp", error="invalid_token"' };
    if (!KEY_PATTERN.test(key)) return void rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid);
    const keyHash = hashKey(key);
    const userId = await this.userOf(key, keyHash);
    if (!userId) return void rpcError(res, 401, GATEWAY_TEXT.invalidKey, invalid);
    const target = await this.target(proxyId);
    // Another user's key: the deployment's existence is not revealed.
    if (!target || target.userId !== userId) return void rpcError(res, 404, GATEWAY_TEXT.notFound);
    return { target, who: { userId, keyHash } };
  }

  /** The key's owner: checked on every request, against the database at least every KEY_TTL_MS. */
  private async userOf(key: string, hash: string): Promise<string | undefined> {
    const generation = this.d.revocations.generation;
    const hit = this.keys.get(hash);
    if (hit && hit.generation === generation && Date.now() - hit.at < KEY_TTL_MS) return hit.userId;
    const viewer = await viewerFromApiKey(this.d.db, key);
    if (!viewer) {
      this.keys.delete(hash);
      return undefined;
    }
    if (this.keys.size >= KEY_CACHE_MAX) this.keys.clear();
    this.keys.set(hash, { userId: viewer.id, at: Date.now(), generation });
    return viewer.id;
  }

  /** proxy id -> deployment, cached briefly; a deployment this process no longer runs is looked up again. */
  private async target(proxyId: string): Promise<GatewayTarget | undefined> {
    const hit = this.targets.get(proxyId);
    if (hit && Date.now() - hit.at < TARGET_TTL_MS && this.d.runner.runs(hit.target.id)) return hit.target;
    const target = await findDeploymentByProxy(this.d.db, proxyId);
    if (target) this.targets.set(proxyId, { target, at: Date.now() });
    else this.targets.delete(proxyId);
    return target;
  }
}
