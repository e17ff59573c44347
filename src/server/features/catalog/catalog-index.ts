// Keeps each process's search index in step with the catalogue. Every write clears the catalogue
// caches here and, through the bus, in every other process (cache.ts); that moves the index's
// wanted version on, and the next search waits for a refresh that started after the write. So a
// search never answers from an index older than a write this process has heard of: at once for its
// own writes, within the bus's delivery (milliseconds) for another process's.
// A refresh reads only the entries changed since the last read (index-repo.ts: loadIndexChanges):
// ~20 ms at 100,000 entries, where a full load takes seconds. The index is loaded in full at
// start and after a hard delete; and in the background once the changes kept beside its base grow,
// and every INDEX_TIMING.fullEveryMs (writes that skipped the trigger leave no mark to read).
import type { Db } from "../../db/client.js";
import { onCatalogChange, perProcess } from "./cache.js";
import { loadIndexChanges, loadIndexRows } from "./index-repo.js";
import { SearchIndex } from "./search-index.js";

/**
 * checkEveryMs: a write made by something without a bus is noticed within this (the cache's TTL),
 * by a refresh in the background. fullEveryMs: a write that skipped the trigger marking changed
 * rows (a restore with triggers off, session_replication_role = replica) is read within this, by
 * a full load in the background. Tests shorten them.
 */
export const INDEX_TIMING = { checkEveryMs: 30_000, fullEveryMs: 15 * 60_000 };
/**
 * Past this many changed entries (or a twentieth of the base, if more), the index is loaded again
 * in full in the background: each refresh rebuilds the changed entries' lists, so they stay small.
 */
const COMPACT_AFTER = 2_000;

/** An index, the snapshot it saw, and when the full load it grew from began. */
type Read = { index: SearchIndex; snapshot: string; fullAt: number };

interface Keeper {
  index?: SearchIndex;
  /** What the current index saw (pg_current_snapshot). */
  snapshot?: string;
  /** When the full load the current index grew from began. */
  fullAt: number;
  /** Bumped by every catalogue change. */
  version: number;
  /** The version the current index was read at (its read started after that change). */
  builtVersion: number;
  checkedAt: number;
  building?: Promise<void>;
  compacting?: Promise<void>;
  /** A background full load, for the next refresh to catch up and put in place. */
  loaded?: Read;
}
/** One index per process, shared by the API and the pages' bundle (see perProcess). */
const keepers = perProcess("catalog.index", () => new WeakMap<Db, Keeper>());

function keeperFor(db: Db): Keeper {
  let k = keepers.get(db);
  if (!k) {
    const keeper: Keeper = { version: 0, builtVersion: -1, checkedAt: 0, fullAt: 0 };
    onCatalogChange(db, () => keeper.version++);
    keepers.set(db, keeper);
    k = keeper;
  }
  return k;
}

async function fullLoad(db: Db): Promise<Read> {
  const fullAt = Date.now();
  const load = await loadIndexRows(db);
  return { index: new SearchIndex(load.rows), snapshot: load.snapshot, fullAt };
}

/** `from` with what changed since it was read; undefined where that cannot be told (a hard delete leaves no changed row). */
async function caughtUp(db: Db, from: Read): Promise<Read | undefined> {
  const changes = await loadIndexChanges(db, from.snapshot);
  const index = from.index.withChanges(changes.rows);
  return index.size === changes.approved ? { index, snapshot: changes.snapshot, fullAt: from.fullAt } : undefined;
}

/** Runs `read` as the keeper's one refresh at a time, and keeps what it gives as of the version it started at. */
function refreshWith(k: Keeper, read: () => Promise<Read>): Promise<void> {
  k.building ??= (async () => {
    const version = k.version;
    try {
      const next = await read();
      k.index = next.index;
      k.snapshot = next.snapshot;
      k.fullAt = next.fullAt;
      k.builtVersion = version;
      k.checkedAt = Date.now();
    } finally {
      k.building = undefined;
    }
  })();
  return k.building;
}

function refresh(db: Db, k: Keeper): Promise<void> {
  return refreshWith(k, async () => {
    // A background full load waiting to take over is caught up by whichever refresh runs next.
    const from = k.loaded ?? (k.index && k.snapshot ? { index: k.index, snapshot: k.snapshot, fullAt: k.fullAt } : undefined);
    k.loaded = undefined;
    const next = from ? await caughtUp(db, from) : undefined;
    if (!next) return fullLoad(db);
    if (next.index.changes.size > Math.max(COMPACT_AFTER, next.index.size / 20)) compact(db, k);
    return next;
  });
}

/**
 * A full load in the background, caught up with what changed meanwhile before it replaces the
 * current index; searches keep their answers from the current one (which is up to date) till then.
 * Under steady writes the refresh that takes it over may be one that a search started.
 */
function compact(db: Db, k: Keeper): void {
  k.compacting ??= (async () => {
    k.loaded = await fullLoad(db);
    while (k.loaded) await refresh(db, k);
  })()
    .catch(() => undefined)
    .finally(() => (k.compacting = undefined));
}

/** The index, up to date with every catalogue change heard of before this call. */
export async function catalogIndex(db: Db): Promise<SearchIndex> {
  const k = keeperFor(db);
  const wanted = k.version;
  while (!k.index || k.builtVersion < wanted) await refresh(db, k);
  // The backstops, in the background: answers keep coming from the current index meanwhile.
  if (Date.now() - k.checkedAt > INDEX_TIMING.checkEveryMs && !k.building) {
    k.checkedAt = Date.now();
    if (Date.now() - k.fullAt > INDEX_TIMING.fullEveryMs) compact(db, k);
    else refresh(db, k).catch(() => undefined);
  }
  return k.index;
}
