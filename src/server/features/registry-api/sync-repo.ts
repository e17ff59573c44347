// The registry sync's state row (registry_sync): one run at a time per upstream, its progress, and
// what the last run did (the admin page and the metrics read it).
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { registrySync } from "../../db/schema.js";

export type SyncState = typeof registrySync.$inferSelect;

/** A run that has not reported for this long is taken to have died with its process. */
const STALE = sql`interval '30 minutes'`;

/** Marks a run of `upstream` as started, unless one is under way: the watermark it starts from, or null when another runs. */
export async function beginRun(db: Db, upstream: string): Promise<{ watermark: string | null } | null> {
  const r = await db.execute<{ watermark: string | null }>(sql`
    insert into registry_sync (upstream, status, started_at, beat_at, runs, progress, counts, skipped, error)
    values (${upstream}, 'running', now(), now(), 1, '{"pages":0,"entries":0}', '{}', '[]', null)
    on conflict (upstream) do update set status = 'running', started_at = now(), beat_at = now(), runs = registry_sync.runs + 1,
      progress = '{"pages":0,"entries":0}', counts = '{}', skipped = '[]', error = null
      where registry_sync.status <> 'running' or registry_sync.beat_at < now() - ${STALE}
    returning watermark`);
  const row = r.rows[0];
  return row ? { watermark: row.watermark } : null;
}

export interface RunReport {
  pages: number;
  entries: number;
  counts: Record<string, number>;
  skipped: Array<{ name: string; reason: string }>;
}

/** What the run has done so far (seen on the admin page while it runs). */
export async function reportProgress(db: Db, upstream: string, r: RunReport): Promise<void> {
  await db
    .update(registrySync)
    .set({ progress: { pages: r.pages, entries: r.entries }, counts: r.counts, skipped: r.skipped, beatAt: sql`now()` })
    .where(eq(registrySync.upstream, upstream));
}

/** The run's end: ok (the watermark moves on) or failed with its reason (it stays, so the next run asks again). */
export async function finishRun(
  db: Db,
  upstream: string,
  r: RunReport & { error: string | null; watermark: string | null },
): Promise<void> {
  const ok = r.error === null;
  await db
    .update(registrySync)
    .set({
      status: ok ? "ok" : "failed",
      finishedAt: sql`now()`,
      ...(ok ? { lastOkAt: sql`now()`, watermark: r.watermark } : {}),
      error: r.error,
      progress: { pages: r.pages, entries: r.entries },
      counts: r.counts,
      skipped: r.skipped,
    })
    .where(eq(registrySync.upstream, upstream));
}

export async function syncState(db: Db, upstream: string): Promise<SyncState | undefined> {
  const [row] = await db.select().from(registrySync).where(eq(registrySync.upstream, upstream));
  return row;
}
