import { LRUCache } from "lru-cache";
import type { Db } from "../../db/client.js";

/**
 * A short-lived cache of catalogue reads (directory searches, server rows, related servers).
 * Every write to the catalogue through this process clears it at once; writes by another process
 * (an import run from the CLI, a second app instance) show within the TTL.
 */
const TTL_MS = 30_000;
interface Entry {
  lru: LRUCache<string, { value: unknown }>;
  /** Bumped by every write, so a read that started before it is never stored after it. */
  generation: number;
}
const caches = new WeakMap<Db, Entry>();

function cacheFor(db: Db): Entry {
  let c = caches.get(db);
  if (!c) {
    c = { lru: new LRUCache<string, { value: unknown }>({ max: 5_000, ttl: TTL_MS }), generation: 0 };
    caches.set(db, c);
  }
  return c;
}

/** The cached value for key, or load() and remember it (undefined results too). */
export async function cached<T>(db: Db, key: string, load: () => Promise<T>): Promise<T> {
  const c = cacheFor(db);
  const hit = c.lru.get(key);
  if (hit) return hit.value as T;
  const generation = c.generation;
  const value = await load();
  if (c.generation === generation) c.lru.set(key, { value });
  return value;
}

export function invalidateCatalog(db: Db): void {
  const c = cacheFor(db);
  c.generation++;
  c.lru.clear();
}
