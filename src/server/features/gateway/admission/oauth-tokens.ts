import type { LRUCache } from "lru-cache";
import type { Logger } from "~/server/log.js";
import type { AccessGrant } from "../../oauth/index.js";
import type { KeyRevocations } from "../../api-keys/revocations.js";
import { ttlCache } from "./ttl-cache.js";
import { Verified } from "./verified.js";

// OAuth access tokens at the gateway (docs/gateway.md, "Who may connect"): any Bearer value not
// shaped like an API key is one. The authorization server says which grant stands behind it; the
// gateway remembers that as briefly as a verified API key, forgets it at once when anything is
// revoked, and records when a grant was last used (at most once a minute per grant).

/** What the gateway asks of the authorization server (wired by the platform to features/oauth). */
export interface OAuthPort {
  /** the grant behind an access token, or null: unknown, expired or revoked */
  verify(token: string): Promise<AccessGrant | null>;
  /** records that the grant was used ('last used' on the Connected apps list) */
  touch(grant: AccessGrant): Promise<void>;
}

export type { AccessGrant };

const TOUCH_EVERY_MS = 60_000;

export interface TokenCheckDeps {
  oauth: OAuthPort;
  revocations: KeyRevocations;
  log: Logger;
}

export class TokenCheck {
  private readonly verified: Verified<AccessGrant>;
  /** grants whose use was recorded within the last TOUCH_EVERY_MS */
  private readonly touched: LRUCache<string, true>;

  constructor(
    private readonly d: TokenCheckDeps,
    /** how long a verified token is trusted without asking again */
    ttlMs: number,
    /** at most this many tokens (and grants) remembered */
    max: number,
  ) {
    this.verified = new Verified(d.revocations, ttlMs, max);
    this.touched = ttlCache(max, TOUCH_EVERY_MS);
  }

  /** The grant behind the token (`hash` is its SHA-256), while it is valid: asked again at least every ttlMs and after any revocation. */
  async grant(token: string, hash: string): Promise<AccessGrant | undefined> {
    const grant = await this.verified.get(hash, async () => (await this.d.oauth.verify(token)) ?? undefined);
    // A remembered token still expires on time.
    if (!grant || grant.expiresAt.getTime() <= Date.now()) {
      this.verified.forget(hash);
      return undefined;
    }
    return grant;
  }

  /** The grant was used: recorded at most once a minute per grant, without holding up the request. */
  used(grant: AccessGrant): void {
    const id = `${grant.userId}\n${grant.clientId}\n${grant.resource}`;
    if (this.touched.has(id)) return;
    this.touched.set(id, true);
    this.d.oauth.touch(grant).catch((e: unknown) => this.d.log.warn({ err: e }, "could not record the use of an OAuth grant"));
  }
}
