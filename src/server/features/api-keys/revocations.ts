import type { Bus } from "../../cluster/bus.js";
import { signal, subscribe, TOPICS } from "../../cluster/topics.js";

// Revocation events for API keys and OAuth grants, one object per platform (created where the
// platform is assembled and handed to whoever revokes keys and whoever caches them), so two apps
// in one process (as in the tests) never see each other's revocations unless they share a
// database. With the platform's bus, a revocation in any process reaches every process: each
// gateway forgets the keys it verified and ends the sessions opened with a revoked one.

export class KeyRevocations {
  private gen = 0;
  private readonly listeners = new Set<() => void>();

  /** Without a bus, revocations stay in this process (unit tests). */
  constructor(private readonly bus?: Bus) {
    // Also "you may have missed some" after the bus reconnects: starting over is always safe.
    if (bus) subscribe(bus, TOPICS.revocations, () => this.apply());
  }

  /** Changes whenever a key stops being valid (revoked, or its account deleted): caches of verified keys compare it. */
  get generation(): number {
    return this.gen;
  }

  /**
   * A key stopped being valid: every cache starts over and every listener checks its keys again,
   * here at once and in every other process. The promise settles once the other processes have
   * been told (it never rejects): a request that revoked a key should await it before answering,
   * so that the key is refused everywhere by the time its owner hears it is gone.
   */
  revoked(): Promise<void> {
    if (this.bus) return signal(this.bus, TOPICS.revocations);
    this.apply();
    return Promise.resolve();
  }

  /** Called after every revocation (the gateway then checks the keys its open sessions were opened with). */
  subscribe(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  private apply() {
    this.gen++;
    for (const cb of this.listeners) cb();
  }
}
