import { LRUCache } from "lru-cache";
import type { Bus } from "../../cluster/bus.js";
import { signal, subscribe, TOPICS } from "../../cluster/topics.js";
import type { Db } from "../../db/client.js";

/**
 * A short-lived cache of catalogue reads (directory searches, server rows, related servers).
 * Every write to the catalogue clears it at once: in this process directly, and in every other
 * process through the bus once the database is connected to one (connectCatalogCache, done by the
 * platform and by the CLI). The TTL is the backstop for a message lost while a process's bus
 * was reconnecting (it then starts over anyway) or a write by something without a bus.
 */
const TTL_MS = 30_000;
interface Entry {
  lru: LRUCache<string, { value: unknown }>;
  /** Bumped by every write, so a read that started before it is never stored after it. */
  generation: number;
  bus?: Bus;
  /** Told of every write (and every "start over"), like the cache itself: the search index. */
  listeners: Set<() => void>;
}
/**
 * One value per process under `name`, not one per copy of a module: the pages' bundle
 * (build/server) carries its own copy of the catalogue's modules, and its reads must see the same
 * caches and index, cleared by the same bus, as the API's.
 */
export function perProcess<T>(name: string, create: () => T): T {
  const registry = globalThis as unknown as Record<symbol, T | undefined>;
  return (registry[Symbol.for(`switchboard.${name}`)] ??= create());
}

const caches = perProcess("catalog.caches", () => new WeakMap<Db, Entry>());

function cacheFor(db: Db): Entry {
  let c = caches.get(db);
  if (!c) {
    c = { lru: new LRUCache<string, { value: unknown }>({ max: 20_000, ttl: TTL_MS }), generation: 0, listeners: new Set() };
    caches.set(db, c);
  }
  return c;
}

function clear(c: Entry) {
  c.generation++;
  c.lru.clear();
  for (const listener of c.listeners) listener();
}

/** `listener` runs whenever the catalogue caches are cleared (a write here or in another process). */
export function onCatalogChange(db: Db, listener: () => void): () => void {
  const c = cacheFor(db);
  c.listeners.add(listener);
  return () => c.listeners.delete(listener);
}

/**
 * From now on writes through `db` clear the catalogue caches of every process on the bus, and
 * theirs clear this one's. Returns the disconnect (the platform's close()).
 */
export function connectCatalogCache(db: Db, bus: Bus): () => void {
  const c = cacheFor(db);
  c.bus = bus;
  // Every message, and "you may have missed some" after a reconnect, means the same: start over.
  const unsubscribe = subscribe(bus, TOPICS.catalog, () => clear(c));
  return () => {
    unsubscribe();
    if (c.bus === bus) c.bus = undefined;
  };
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

/**
 * The cached values of many keys (`prefix` + key), loading the missing ones together: `load`
 * answers those it found; a key it did not find is remembered as absent too.
 */
export async function cachedEach<T>(
  db: Db,
  prefix: string,
  keys: string[],
  load: (missing: string[]) => Promise<Map<string, T>>,
): Promise<Map<string, T | undefined>> {
  const c = cacheFor(db);
  const out = new Map<string, T | undefined>();
  const missing: string[] = [];
  for (const key of keys) {
    const hit = c.lru.get(prefix + key);
    if (hit) out.set(key, hit.value as T | undefined);
    else missing.push(key);
  }
  if (missing.length === 0) return out;
  const generation = c.generation;
  const found = await load(missing);
  for (const key of missing) {
    const value = found.get(key);
    out.set(key, value);
    if (c.generation === generation) c.lru.set(prefix + key, { value });
  }
  return out;
}

/**
 * Called after every committed catalogue write: this process's cache is clear when it returns;
 * the promise settles (never rejects) once the other processes have been told.
 */
export function invalidateCatalog(db: Db): Promise<void> {
  const c = cacheFor(db);
  // The bus calls this process's own subscriber (above) before it returns.
  if (c.bus) return signal(c.bus, TOPICS.catalog);
  clear(c);
  return Promise.resolve();
}
