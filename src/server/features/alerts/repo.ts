import { sql } from "drizzle-orm";
import type { AlertKind, AlertSettingsInput, AlertSettingsView, AlertView } from "~/shared/alerts.js";
import type { Db } from "../../db/client.js";

// Alerts' SQL (docs/observability.md#alerts). The sweep reads deployments, their request log and
// their owners' pending definition changes; it writes only its own two tables.

/** an alert resolved this recently is reopened rather than raised again */
const REOPEN_MINUTES = 15;

const DEFAULT_SETTINGS: AlertSettingsView = { email: true, error_rate_pct: null, p95_ms: null };

export async function loadSettings(db: Db, deploymentId: string): Promise<AlertSettingsView> {
  const r = await db.execute<{ email: boolean; error_rate_pct: number | null; p95_ms: number | null }>(
    sql`select email, error_rate_pct, p95_ms from alert_settings where deployment_id = ${deploymentId}`,
  );
  return r.rows[0] ?? DEFAULT_SETTINGS;
}

export async function saveSettings(db: Db, deploymentId: string, s: AlertSettingsInput): Promise<void> {
  await db.execute(sql`
    insert into alert_settings (deployment_id, email, error_rate_pct, p95_ms, updated_at)
    values (${deploymentId}, ${s.email}, ${s.error_rate_pct}, ${s.p95_ms}, now())
    on conflict (deployment_id) do update
      set email = excluded.email, error_rate_pct = excluded.error_rate_pct, p95_ms = excluded.p95_ms, updated_at = now()`);
}

export async function listAlerts(db: Db, deploymentId: string, limit = 20): Promise<AlertView[]> {
  const r = await db.execute<{
    id: string;
    kind: AlertKind;
    message: string;
    opened_at: Date;
    resolved_at: Date | null;
    email: AlertView["email"];
  }>(sql`
    select id, kind, message, opened_at, resolved_at, email from deployment_alerts
    where deployment_id = ${deploymentId} order by opened_at desc, id desc limit ${limit}`);
  return r.rows.map((a) => ({
    id: Number(a.id),
    kind: a.kind,
    message: a.message,
    opened_at: new Date(a.opened_at).toISOString(),
    resolved_at: a.resolved_at ? new Date(a.resolved_at).toISOString() : null,
    email: a.email,
  }));
}

/** A Pro owner's deployment as the sweep sees it. */
export interface Watched {
  id: string;
  userId: string;
  status: string;
  statusDetail: string | null;
  serverKind: string;
  serverRef: string;
  /** the server's name as its page shows it */
  name: string;
  ownerEmail: string;
  settings: AlertSettingsView;
}

/** Every deployment of these owners, with its settings and its server's name. */
export async function watchedDeployments(db: Db, owners: readonly string[]): Promise<Watched[]> {
  if (!owners.length) return [];
  const r = await db.execute<{
    id: string;
    user_id: string;
    status: string;
    status_detail: string | null;
    server_kind: string;
    server_ref: string;
    name: string | null;
    owner_email: string;
    email: boolean | null;
    error_rate_pct: number | null;
    p95_ms: number | null;
  }>(sql`
    select d.id, d.user_id, d.status, d.status_detail, d.server_kind, d.server_ref,
           -- An organisation's deployment (its account has no mailbox, features/orgs/accounts.ts): its owners are told.
           case when d.user_id like 'org\_%' then (
             select string_agg(ou.email, ', ' order by mb.created_at) from member mb join "user" ou on ou.id = mb.user_id
             where 'org_' || mb.organization_id = d.user_id and mb.role = 'owner'
           ) else u.email end as owner_email,
           coalesce(m.name, o.display_name) as name, s.email, s.error_rate_pct, s.p95_ms
    from deployments d
    join "user" u on u.id = d.user_id
    left join mcp_servers m on d.server_kind = 'catalog' and m.id = d.server_ref
    left join servers o on d.server_kind = 'owned' and o.qualified_name = d.server_ref
    left join alert_settings s on s.deployment_id = d.id
    where d.user_id = any(${sql.param([...owners])}::text[])`);
  return r.rows.map((d) => ({
    id: d.id,
    userId: d.user_id,
    status: d.status,
    statusDetail: d.status_detail,
    serverKind: d.server_kind,
    serverRef: d.server_ref,
    name: d.name ?? d.server_ref,
    ownerEmail: d.owner_email,
    settings: d.email === null ? DEFAULT_SETTINGS : { email: d.email, error_rate_pct: d.error_rate_pct, p95_ms: d.p95_ms },
  }));
}

export interface WindowFigures {
  /** requests counted: the playground's and those refused by fair use are not the server's doing */
  n: number;
  /** JSON-RPC errors and tool results with isError */
  errors: number;
  p95Ms: number;
}

/** The last `minutes` of these deployments' request log, walked by time (the log's own index). */
export async function windowFigures(db: Db, ids: readonly string[], minutes: number): Promise<Map<string, WindowFigures>> {
  if (!ids.length) return new Map();
  const r = await db.execute<{ deployment_id: string; n: string; errors: string; p95: number | null }>(sql`
    select deployment_id, count(*) as n, count(*) filter (where outcome in ('error', 'tool_error')) as errors,
           percentile_cont(0.95) within group (order by duration_ms) as p95
    from request_log
    where at > now() - make_interval(mins => ${minutes}) and not playground and outcome not in ('rate_limited', 'cancelled')
      and deployment_id = any(${sql.param([...ids])}::text[])
    group by deployment_id`);
  return new Map(r.rows.map((x) => [x.deployment_id, { n: Number(x.n), errors: Number(x.errors), p95Ms: Math.round(x.p95 ?? 0) }]));
}

/** Definitions listed but neither approved nor rejected, per deployment (pins are per owner and server). */
export async function pendingDefinitions(db: Db, ids: readonly string[]): Promise<Map<string, string[]>> {
  if (!ids.length) return new Map();
  const r = await db.execute<{ id: string; names: string[] }>(sql`
    select d.id, array_agg(p.name order by p.kind, p.name) as names
    from deployments d
    join definition_pins p on p.user_id = d.user_id and p.server_kind = d.server_kind and p.server_ref = d.server_ref
    where d.id = any(${sql.param([...ids])}::text[])
      and p.current_hash is not null and p.current_hash is distinct from p.approved_hash
      and p.current_hash is distinct from p.rejected_hash
    group by d.id`);
  return new Map(r.rows.map((x) => [x.id, x.names]));
}

/** The open alerts of these deployments, as `${id} ${kind}`. */
export async function openAlerts(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const r = await db.execute<{ deployment_id: string; kind: string }>(sql`
    select deployment_id, kind from deployment_alerts
    where resolved_at is null and deployment_id = any(${sql.param([...ids])}::text[])`);
  return new Set(r.rows.map((x) => `${x.deployment_id} ${x.kind}`));
}

/**
 * Opens an alert unless one of its kind is open for the deployment already (any process's: the
 * unique index decides). Its id, or undefined when one was open.
 */
export async function openAlert(
  db: Db,
  deploymentId: string,
  kind: Exclude<AlertKind, "test">,
  message: string,
): Promise<{ id: number; reopened: boolean } | undefined> {
  // A condition that cleared and came back within minutes (a flapping error rate) reopens its
  // alert: no new row, and no second e-mail.
  const again = await db.execute<{ id: string }>(sql`
    update deployment_alerts set resolved_at = null, message = ${message.slice(0, 2000)}
    where id = (
      select id from deployment_alerts where deployment_id = ${deploymentId} and kind = ${kind}
        and resolved_at > now() - make_interval(mins => ${REOPEN_MINUTES}) order by resolved_at desc limit 1)
      and not exists (select 1 from deployment_alerts where deployment_id = ${deploymentId} and kind = ${kind} and resolved_at is null)
    returning id`);
  if (again.rows[0]) return { id: Number(again.rows[0].id), reopened: true };
  const r = await db.execute<{ id: string }>(sql`
    insert into deployment_alerts (deployment_id, kind, message)
    values (${deploymentId}, ${kind}, ${message.slice(0, 2000)})
    on conflict (deployment_id, kind) where resolved_at is null do nothing
    returning id`);
  return r.rows[0] ? { id: Number(r.rows[0].id), reopened: false } : undefined;
}

export async function resolveAlert(db: Db, deploymentId: string, kind: AlertKind): Promise<void> {
  await db.execute(sql`
    update deployment_alerts set resolved_at = now()
    where deployment_id = ${deploymentId} and kind = ${kind} and resolved_at is null`);
}

export async function setEmailOutcome(db: Db, alertId: number, outcome: AlertView["email"]): Promise<void> {
  await db.execute(sql`update deployment_alerts set email = ${outcome} where id = ${alertId}`);
}

/** E-mails this deployment's alerts sent (or tried) in the last hour. */
export async function emailsLastHour(db: Db, deploymentId: string): Promise<number> {
  const r = await db.execute<{ n: string }>(sql`
    select count(*) as n from deployment_alerts
    where deployment_id = ${deploymentId} and email in ('sent', 'failed', 'pending') and opened_at > now() - interval '1 hour'`);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * A test alert, unless one was sent in the last minute or `perHour` in the last hour: decided under
 * a lock on the deployment, so concurrent clicks (or a script) send one. Its id, or why not.
 */
export async function openTestAlert(
  db: Db,
  deploymentId: string,
  message: string,
  perHour: number,
): Promise<number | "too_soon" | "throttled"> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`alert-test:${deploymentId}`}, 0))`);
    const recent = await tx.execute(sql`
      select 1 from deployment_alerts
      where deployment_id = ${deploymentId} and kind = 'test' and opened_at > now() - interval '1 minute' limit 1`);
    if (recent.rows.length) return "too_soon";
    const hour = await tx.execute<{ n: string }>(sql`
      select count(*) as n from deployment_alerts
      where deployment_id = ${deploymentId} and kind = 'test' and opened_at > now() - interval '1 hour'`);
    if (Number(hour.rows[0]!.n) >= perHour) return "throttled";
    const r = await tx.execute<{ id: string }>(sql`
      insert into deployment_alerts (deployment_id, kind, message, resolved_at, opened_at)
      values (${deploymentId}, 'test', ${message}, clock_timestamp(), clock_timestamp()) returning id`);
    return Number(r.rows[0]!.id);
  });
}

/** Resolved alerts older than `days` go; a deployment's list stays short. */
export async function deleteResolvedOlderThan(db: Db, days: number): Promise<number> {
  const r = await db.execute(sql`
    delete from deployment_alerts where resolved_at is not null and resolved_at < now() - make_interval(days => ${days})`);
  return r.rowCount ?? 0;
}
