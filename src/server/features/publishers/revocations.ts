// Revocation events for API keys, one object per platform (created where the platform is
// assembled and handed to whoever revokes keys and whoever caches them), so two apps in one
// process (as in the tests) never see each other's revocations.

export class KeyRevocations {
  private gen = 0;
  private readonly listeners = new Set<() => void>();

  /** Changes whenever a key stops being valid (revoked, or its account deleted): caches of verified keys compare it. */
  get generation(): number {
    return this.gen;
  }

  /** A key stopped being valid: every cache starts over and every listener checks its keys again. */
  revoked(): void {
    this.gen++;
    for (const cb of this.listeners) cb();
  }

  /** Called after every revocation (the gateway then checks the keys its open sessions were opened with). */
  subscribe(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
}
