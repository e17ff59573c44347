import type { LRUCache } from "lru-cache";
import type { KeyRevocations } from "../../api-keys/revocations.js";
import { ttlCache } from "./ttl-cache.js";

/**
 * What a credential was verified as (an API key's owner, an access token's grant, a sign-in
 * cookie's session), remembered by the credential's hash for at most `ttlMs` so most requests
 * skip the database, and forgotten at once when anything is revoked anywhere (the revocations'
 * generation changes). At most `max` are kept; beyond that the least recently used goes.
 */
export class Verified<T> {
  private readonly m: LRUCache<string, { value: T; generation: number }>;

  constructor(
    private readonly revocations: Pick<KeyRevocations, "generation">,
    ttlMs: number,
    max: number,
  ) {
    this.m = ttlCache(max, ttlMs);
  }

  /** The remembered value, or `verify()`'s answer (undefined: not valid, and nothing is remembered). */
  async get(hash: string, verify: () => Promise<T | undefined>): Promise<T | undefined> {
    const generation = this.revocations.generation;
    const hit = this.m.get(hash);
    if (hit && hit.generation === generation) return hit.value;
    const value = await verify();
    if (value === undefined) {
      this.m.delete(hash);
      return undefined;
    }
    this.m.set(hash, { value, generation });
    return value;
  }

  forget(hash: string): void {
    this.m.delete(hash);
  }
}
