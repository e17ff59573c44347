import type { Logger } from "../log.js";

// The bus that carries facts every process must learn at once (a revoked key, a catalogue write):
// its interface, the subscribers of each topic, and the one-process bus of the unit tests. The
// platform's bus, over PostgreSQL's LISTEN/NOTIFY, is pg-bus.ts; the topics are topics.ts.

/** The payload a subscriber gets when it may have missed messages: start over. */
export const RESYNC = "*";

export interface Bus {
  /**
   * Tells every subscriber of `topic` in every process. Subscribers in this process run before
   * it returns; the promise settles (it never rejects) once every other listening process has
   * run its subscribers too, or has been given up on.
   */
  publish(topic: string, payload?: string): Promise<void>;
  /** `cb` runs for every message on `topic` (from this process or another), and with RESYNC after a gap; returns the unsubscribe. */
  subscribe(topic: string, cb: (payload: string) => void): () => void;
  /** Runs `fn`, then waits until everything it published has reached every process. */
  settle<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Subscribers by topic, and calling them so that one that throws cannot keep the others from hearing. */
export class Subscribers {
  private readonly byTopic = new Map<string, Set<(payload: string) => void>>();

  constructor(private readonly log?: Logger) {}

  add(topic: string, cb: (payload: string) => void): () => void {
    let set = this.byTopic.get(topic);
    if (!set) this.byTopic.set(topic, (set = new Set()));
    set.add(cb);
    return () => {
      set.delete(cb);
      if (set.size === 0 && this.byTopic.get(topic) === set) this.byTopic.delete(topic);
    };
  }

  deliver(topic: string, payload: string): void {
    for (const cb of [...(this.byTopic.get(topic) ?? [])]) this.call(topic, cb, payload);
  }

  resync(): void {
    for (const [topic, set] of this.byTopic) for (const cb of [...set]) this.call(topic, cb, RESYNC);
  }

  private call(topic: string, cb: (payload: string) => void, payload: string) {
    try {
      cb(payload);
    } catch (e) {
      this.log?.error({ err: e, topic }, "a bus subscriber failed");
    }
  }
}

/** One process only: for unit tests (every process of the platform has a PgBus). */
export class LocalBus implements Bus {
  private readonly subs = new Subscribers();

  publish(topic: string, payload = ""): Promise<void> {
    this.subs.deliver(topic, payload);
    return Promise.resolve();
  }

  subscribe(topic: string, cb: (payload: string) => void): () => void {
    return this.subs.add(topic, cb);
  }

  settle<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
