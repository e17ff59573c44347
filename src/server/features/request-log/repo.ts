import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { deployments, requestLog, toolStats } from "../../db/schema.js";
import type { ServerKind } from "~/shared/deployments.js";
import type { Outcome } from "~/shared/request-log.js";

export type RequestLogRow = typeof requestLog.$inferInsert;

export interface ToolStatDelta {
  kind: ServerKind;
  ref: string;
  tool: string;
  hour: Date;
  /** the deployment's owner: public figures weigh each user once */
  userId: string;
  calls: number;
  errors: number;
  buckets: number[];
}

/**
 * One INSERT of any number of rows with fourteen parameters, one array per column: a statement with
 * a placeholder per value costs the gateway's event loop milliseconds to build at a thousand rows
 * a second, and PostgreSQL allows only 65,535 placeholders.
 */
function insertRows(rows: readonly RequestLogRow[]): SQL {
  // One parameter per column (drizzle would spread a bare array into a list of placeholders).
  const col = <T>(f: (r: RequestLogRow) => T) => sql.param(rows.map(f));
  return sql`insert into request_log (deployment_id, at, client_name, client_version, method, name, duration_ms, outcome, error_code, bytes_in, bytes_out, transport, playground, woke_ms, caller_id)
    select * from unnest(${col((r) => r.deploymentId)}::text[], ${col((r) => (r.at as Date).toISOString())}::timestamptz[], ${col((r) => r.clientName ?? null)}::text[],
      ${col((r) => r.clientVersion ?? null)}::text[], ${col((r) => r.method)}::text[], ${col((r) => r.name ?? null)}::text[], ${col((r) => r.durationMs)}::real[],
      ${col((r) => r.outcome)}::text[], ${col((r) => r.errorCode ?? null)}::int[], ${col((r) => r.bytesIn)}::int[], ${col((r) => r.bytesOut)}::int[], ${col((r) => r.transport)}::text[],
      ${col((r) => r.playground ?? false)}::boolean[], ${col((r) => r.wokeMs ?? null)}::int[], ${col((r) => r.callerId ?? null)}::text[])`;
}

/** Sorted by key: processes flushing at once lock tool_stats rows in one order and never deadlock. */
function byKey(a: ToolStatDelta, b: ToolStatDelta): number {
  const k = (d: ToolStatDelta) => [d.kind, d.ref, d.tool, d.userId] as const;
  const [x, y] = [k(a), k(b)];
  for (let i = 0; i < 4; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return a.hour.getTime() - b.hour.getTime();
}

/** One flush of a writer: the log rows and the tool figures, in one transaction (all or nothing). */
export async function writeBatch(db: Db, rows: readonly RequestLogRow[], stats: readonly ToolStatDelta[]): Promise<void> {
  if (rows.length === 0 && stats.length === 0) return;
  await db.transaction(async (tx) => {
    // A deployment stopped since its requests were answered has gone, and its log with it.
    const ids = [...new Set(rows.map((r) => r.deploymentId))];
    const live = ids.length
      ? new Set((await tx.select({ id: deployments.id }).from(deployments).where(inArray(deployments.id, ids))).map((d) => d.id))
      : new Set<string>();
    const kept = live.size === ids.length ? rows : rows.filter((r) => live.has(r.deploymentId));
    if (kept.length) await tx.execute(insertRows(kept));
    if (stats.length === 0) return;
    const sorted = [...stats].sort(byKey);
    await tx
      .insert(toolStats)
      .values(
        sorted.map((s) => ({
          serverKind: s.kind,
          serverRef: s.ref,
          tool: s.tool,
          hour: s.hour,
          userId: s.userId,
          calls: s.calls,
          errors: s.errors,
          buckets: s.buckets,
        })),
      )
      .onConflictDoUpdate({
        target: [toolStats.serverKind, toolStats.serverRef, toolStats.tool, toolStats.hour, toolStats.userId],
        set: {
          calls: sql`${toolStats.calls} + excluded.calls`,
          errors: sql`${toolStats.errors} + excluded.errors`,
          buckets: sql`array(select coalesce(a, 0) + coalesce(b, 0) from unnest(${toolStats.buckets}, excluded.buckets) with ordinality as u(a, b, i) order by i)`,
        },
      });
  });
}

/** Who owns a deployment, and of which server (undefined: no such deployment). */
export async function deploymentOwner(db: Db, id: string): Promise<{ userId: string; kind: ServerKind; ref: string } | undefined> {
  const [r] = await db
    .select({ userId: deployments.userId, kind: deployments.serverKind, ref: deployments.serverRef })
    .from(deployments)
    .where(eq(deployments.id, id));
  return r ? { userId: r.userId, kind: r.kind as ServerKind, ref: r.ref } : undefined;
}

export interface RequestFilter {
  method?: string;
  name?: string;
  outcome?: Outcome;
  /** the playground's own requests too */
  playground?: boolean;
  limit: number;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Newest first; the name matches as a case-insensitive substring. */
export async function findRequests(db: Db, deploymentId: string, f: RequestFilter) {
  const where: SQL[] = [eq(requestLog.deploymentId, deploymentId)];
  if (f.method) where.push(eq(requestLog.method, f.method));
  if (f.outcome) where.push(eq(requestLog.outcome, f.outcome));
  if (f.name) where.push(sql`${requestLog.name} ilike ${`%${likeEscape(f.name)}%`}`);
  if (!f.playground) where.push(eq(requestLog.playground, false));
  return db
    .select({
      at: requestLog.at,
      clientName: requestLog.clientName,
      clientVersion: requestLog.clientVersion,
      method: requestLog.method,
      name: requestLog.name,
      durationMs: requestLog.durationMs,
      outcome: requestLog.outcome,
      errorCode: requestLog.errorCode,
      bytesIn: requestLog.bytesIn,
      bytesOut: requestLog.bytesOut,
      playground: requestLog.playground,
      wokeMs: requestLog.wokeMs,
      // The member who called an organisation's deployment, by their username (never their key).
      caller: sql<string | null>`(select username from profiles p where p.id = ${requestLog.callerId})`,
    })
    .from(requestLog)
    .where(and(...where))
    .orderBy(desc(requestLog.at), desc(requestLog.id))
    .limit(f.limit);
}

/** The methods among a deployment's latest requests (an index-backed read of a bounded number of rows). */
export async function recentMethods(db: Db, deploymentId: string, window = 5000): Promise<string[]> {
  const r = await db.execute<{ method: string }>(sql`
    select distinct method from (
      select method from request_log where deployment_id = ${deploymentId} order by at desc, id desc limit ${window}
    ) recent order by method`);
  return r.rows.map((x) => x.method);
}

/** Deletes rows older than `days` (0: every row), a chunk at a time so no statement runs long. */
export async function deleteOlderThan(db: Db, days: number, chunk = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await db.execute(sql`
      delete from request_log where id = any(array(
        select id from request_log where at < now() - make_interval(days => ${days}) limit ${chunk}
      ))`);
    total += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < chunk) return total;
  }
}

/**
 * Deletes rows older than `days` of every deployment whose owner is not in `keep` (the Pro owners,
 * whose rows the sweep keeps longer): each deployment's own index, walked to its cutoff.
 */
export async function deleteOthersOlderThan(db: Db, days: number, keep: readonly string[], chunk = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await db.execute(sql`
      delete from request_log where id = any(array(
        select old.id from deployments d
        cross join lateral (
          select id from request_log where deployment_id = d.id and at < now() - make_interval(days => ${days}) limit ${chunk}
        ) old
        where d.user_id <> all(${sql.param([...keep])}::text[])
        limit ${chunk}
      ))`);
    total += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < chunk) return total;
  }
}

/**
 * Keeps the newest `max` rows of each deployment that logged anything in the last `activeMinutes`
 * (only those can have grown past it since the last sweep). Every step walks an index: recent rows
 * by time, each deployment's rows newest first to its max-th, and the delete of what lies beyond
 * it, one deployment at a time.
 */
export async function trimBeyond(db: Db, max: number, activeMinutes: number): Promise<number> {
  const cuts = await db.execute<{ deployment_id: string; at: string; id: string }>(sql`
    select a.deployment_id, c.at::text as at, c.id::text as id
    from (select distinct deployment_id from request_log where at > now() - make_interval(mins => ${activeMinutes})) a
    cross join lateral (
      select at, id from request_log l where l.deployment_id = a.deployment_id order by at desc, id desc offset ${max} limit 1
    ) c
    order by a.deployment_id`);
  let total = 0;
  for (const c of cuts.rows) {
    const r = await db.execute(
      sql`delete from request_log where deployment_id = ${c.deployment_id} and (at, id) <= (${c.at}::timestamptz, ${c.id}::bigint)`,
    );
    total += r.rowCount ?? 0;
  }
  return total;
}

export async function deleteOldToolStats(db: Db, hours: number): Promise<number> {
  const r = await db.execute(sql`delete from tool_stats where hour < now() - make_interval(hours => ${hours})`);
  return r.rowCount ?? 0;
}

/**
 * A server's hourly figures of the current hour and the 23 before it, per user, for the tools its
 * public listing names (a catalogue entry's approved one, an owned server's own): a client
 * calling made-up tool names, or a user's deployment listing tools of its own, never puts a name
 * on the public page.
 */
export async function recentToolStats(db: Db, kind: ServerKind, ref: string) {
  const names =
    kind === "catalog"
      ? sql`select jsonb_array_elements(l.approved -> 'tools') ->> 'name' from catalog_listings l where l.server_id = ${ref} and jsonb_typeof(l.approved -> 'tools') = 'array'`
      : sql`select jsonb_array_elements(c.tools) ->> 'name' from server_capabilities c where c.server_kind = 'owned' and c.server_ref = ${ref} and jsonb_typeof(c.tools) = 'array'`;
  // Summed per tool and user here (buckets element by element): one row each, not one an hour.
  const r = await db.execute<{ tool: string; user_id: string; calls: number; errors: number; buckets: number[] }>(sql`
    with r as (
      select t.tool, t.user_id, t.calls, t.errors, t.buckets from tool_stats t
      where t.server_kind = ${kind} and t.server_ref = ${ref}
        and t.hour > now() - interval '24 hours'
        and t.tool in (${names})),
    b as (
      select r.tool, r.user_id, u.i, sum(u.v) as v from r, unnest(r.buckets) with ordinality as u(v, i) group by r.tool, r.user_id, u.i),
    bb as (select b.tool, b.user_id, array_agg(b.v::int order by b.i) as buckets from b group by b.tool, b.user_id)
    select c.tool, c.user_id, c.calls, c.errors, coalesce(bb.buckets, '{}') as buckets
    from (select r.tool, r.user_id, sum(r.calls)::int as calls, sum(r.errors)::int as errors from r group by r.tool, r.user_id) c
    left join bb on bb.tool = c.tool and bb.user_id = c.user_id`);
  return r.rows;
}

/** When each of a user's deployments last answered a client's request (as its log has it; the playground's are not use), by deployment id. */
export async function lastRequestAt(db: Db, userId: string, deploymentIds: readonly string[]): Promise<Map<string, string>> {
  if (deploymentIds.length === 0) return new Map();
  const rows = await db
    .select({ id: requestLog.deploymentId, at: sql<string>`max(${requestLog.at})` })
    .from(requestLog)
    .innerJoin(deployments, eq(deployments.id, requestLog.deploymentId))
    .where(and(eq(deployments.userId, userId), inArray(requestLog.deploymentId, [...deploymentIds]), eq(requestLog.playground, false)))
    .groupBy(requestLog.deploymentId);
  return new Map(rows.map((r) => [r.id, new Date(r.at).toISOString()]));
}
