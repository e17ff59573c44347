import type { KeyRevocations } from "../publishers/revocations.js";

/**
 * What a credential was verified as (an API key's owner, an access token's grant, a sign-in
 * cookie's session), remembered by the credential's hash for at most `ttlMs` so most requests
 * skip the database, and forgotten at once when anything is revoked anywhere (the revocations'
 * generation changes). At most `max` are kept; beyond that the memory starts over.
 */
export class Verified<T> {
  private readonly m = new Map<string, { value: T; at: number; generation: number }>();

  constructor(
    private readonly revocations: Pick<KeyRevocations, "generation">,
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  /** The remembered value, or `verify()`'s answer (undefined: not valid, and nothing is remembered). */
  async get(hash: string, verify: () => Promise<T | undefined>): Promise<T | undefined> {
    const generation = this.revocations.generation;
    const hit = this.m.get(hash);
    if (hit && hit.generation === generation && Date.now() - hit.at < this.ttlMs) return hit.value;
    const value = await verify();
    if (value === undefined) {
      this.m.delete(hash);
      return undefined;
    }
    if (this.m.size >= this.max) this.m.clear();
    this.m.set(hash, { value, at: Date.now(), generation });
    return value;
  }

  forget(hash: string): void {
    this.m.delete(hash);
  }
}
