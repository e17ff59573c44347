import { LRUCache } from "lru-cache";

// The gateway's one kind of short memory (verified credentials, proxy id -> deployment, a grant's
// last recorded use): at most `max` entries, the least recently used going first, each kept for
// less than `ttlMs`. Built on lru-cache, on the wall clock the gateway always used (Date.now).

/** whole milliseconds, read at each check: no timer, and fake timers in tests move it */
const CLOCK = { now: () => Date.now() };

/**
 * A cache whose entries are fresh while younger than `ttlMs` (lru-cache keeps an entry while its
 * age is at most `ttl`; on a whole-millisecond clock, `ttl: ttlMs - 1` is exactly that).
 */
export function ttlCache<V extends NonNullable<unknown>>(max: number, ttlMs: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ max, ttl: ttlMs - 1, ttlResolution: 0, perf: CLOCK });
}
