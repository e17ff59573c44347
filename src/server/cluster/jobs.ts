import os from "node:os";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";

// Periodic jobs that must run once per cluster, not once per process (the billing sweep): every
// process ticks at the job's interval and asks to claim the run; one atomic upsert on the job's
// row in cluster_jobs lets exactly one of them win per interval, whatever their number.
//
// Work a process does for itself needs no claim: usage counts, for one, are flushed by the
// process that counted them (they are added, never overwritten, so nothing is counted twice).

/** Who ran a job last, shown to operators: host and process id. */
export function processName(): string {
  return `${os.hostname()}:${process.pid}`;
}

/**
 * True if this caller won the run of `name` for the current interval: none ran it in the last
 * `everyMs`. A tenth of the interval is forgiven so that one process whose timer fires a little
 * early (timers and clocks jitter) does not skip every other run; across processes the runs are
 * thus between 0.9 and about 2 intervals apart (at most one interval plus the gap between ticks).
 */
export async function claimRun(db: Db, name: string, everyMs: number, ranBy = processName()): Promise<boolean> {
  const minGapMs = Math.max(1, Math.floor(everyMs * 0.9));
  const r = await db.execute(sql`
    insert into cluster_jobs (name, last_run_at, ran_by, runs) values (${name}, now(), ${ranBy}, 1)
    on conflict (name) do update set last_run_at = now(), ran_by = excluded.ran_by, runs = cluster_jobs.runs + 1
      where cluster_jobs.last_run_at <= now() - make_interval(secs => ${minGapMs / 1000})
    returning name`);
  return r.rows.length === 1;
}

/** What operators see of a job: when it last ran, where, and how often so far. */
export async function jobStatus(db: Db, name: string): Promise<{ lastRunAt: Date; ranBy: string | null; runs: number } | undefined> {
  const r = await db.execute<{ last_run_at: string | Date; ran_by: string | null; runs: string | number }>(
    sql`select last_run_at, ran_by, runs from cluster_jobs where name = ${name}`,
  );
  const row = r.rows[0];
  return row && { lastRunAt: new Date(row.last_run_at), ranBy: row.ran_by, runs: Number(row.runs) };
}
