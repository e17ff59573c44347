// Keeps each process's search index in step with the catalogue. Every write clears the catalogue
// caches here and, through the bus, in every other process (cache.ts); that moves the index's
// wanted version on, and the next search waits for a rebuild that started after the write. So a
// search never answers from an index older than a write this process has heard of: at once for its
// own writes, within the bus's delivery (milliseconds) for another process's.
import type { Db } from "../../db/client.js";
import { onCatalogChange, perProcess } from "./cache.js";
import { catalogFingerprint, loadIndexRows } from "./index-repo.js";
import { SearchIndex } from "./search-index.js";

/**
 * A write made by something without a bus is noticed within this (the cache's TTL) by a cheap
 * fingerprint of the table; only a change rebuilds (a rebuild at 100,000 entries takes ~1 s; the check ~50 ms).
 */
const CHECK_EVERY_MS = 30_000;

interface Keeper {
  index?: SearchIndex;
  /** Bumped by every catalogue change. */
  version: number;
  /** The version the current index was loaded at (it started loading after that change). */
  builtVersion: number;
  /** The table's fingerprint taken just before the current index was loaded. */
  fingerprint?: string;
  checkedAt: number;
  building?: Promise<void>;
  checking?: Promise<void>;
}
/** One index per process, shared by the API and the pages' bundle (see perProcess). */
const keepers = perProcess("catalog.index", () => new WeakMap<Db, Keeper>());

function keeperFor(db: Db): Keeper {
  let k = keepers.get(db);
  if (!k) {
    const keeper: Keeper = { version: 0, builtVersion: -1, checkedAt: 0 };
    onCatalogChange(db, () => keeper.version++);
    keepers.set(db, keeper);
    k = keeper;
  }
  return k;
}

function rebuild(db: Db, k: Keeper): Promise<void> {
  k.building ??= (async () => {
    const version = k.version;
    try {
      // Taken first: a write landing during the load changes it, so the next check rebuilds.
      const fingerprint = await catalogFingerprint(db);
      const index = new SearchIndex(await loadIndexRows(db));
      k.index = index;
      k.builtVersion = version;
      k.fingerprint = fingerprint;
      k.checkedAt = Date.now();
    } finally {
      k.building = undefined;
    }
  })();
  return k.building;
}

/** The index, up to date with every catalogue change heard of before this call. */
export async function catalogIndex(db: Db): Promise<SearchIndex> {
  const k = keeperFor(db);
  const wanted = k.version;
  while (!k.index || k.builtVersion < wanted) await rebuild(db, k);
  if (Date.now() - k.checkedAt > CHECK_EVERY_MS && !k.building && !k.checking) check(db, k);
  return k.index;
}

/** The backstop, in the background: answers keep coming from the current index meanwhile. */
function check(db: Db, k: Keeper): void {
  k.checkedAt = Date.now();
  k.checking = (async () => {
    if ((await catalogFingerprint(db)) !== k.fingerprint) await rebuild(db, k);
  })()
    .catch(() => undefined)
    .finally(() => (k.checking = undefined));
}
