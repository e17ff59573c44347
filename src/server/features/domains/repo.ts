import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";

// Custom domains' SQL (docs/operations.md#custom-domains).

export interface DomainRow {
  domain: string;
  deploymentId: string;
  token: string;
  status: "pending" | "verified" | "suspended";
  verifiedAt: Date | null;
  checkedAt: Date | null;
  missingSince: Date | null;
}

type Raw = {
  domain: string;
  deployment_id: string;
  token: string;
  status: DomainRow["status"];
  verified_at: Date | null;
  checked_at: Date | null;
  missing_since: Date | null;
};
const date = (v: Date | string | null) => (v === null ? null : new Date(v));
const row = (r: Raw): DomainRow => ({
  domain: r.domain,
  deploymentId: r.deployment_id,
  token: r.token,
  status: r.status,
  verifiedAt: date(r.verified_at),
  checkedAt: date(r.checked_at),
  missingSince: date(r.missing_since),
});
const COLUMNS = sql`domain, deployment_id, token, status, verified_at, checked_at, missing_since`;

export async function domainsOf(db: Db, deploymentId: string): Promise<DomainRow[]> {
  const r = await db.execute<Raw>(
    sql`select ${COLUMNS} from custom_domains where deployment_id = ${deploymentId} order by created_at, domain`,
  );
  return r.rows.map(row);
}

/**
 * Adds a domain to a deployment: refused when any deployment has it already, or this one has
 * `max`. Decided under a lock on the deployment's row, so two adds at once count each other.
 */
export async function addDomain(
  db: Db,
  d: { domain: string; deploymentId: string; token: string },
  max: number,
): Promise<"added" | "taken" | "too_many" | "gone"> {
  return db.transaction(async (tx) => {
    const owner = await tx.execute(sql`select 1 from deployments where id = ${d.deploymentId} for update`);
    if (!owner.rows.length) return "gone";
    const n = await tx.execute<{ n: string }>(sql`select count(*) as n from custom_domains where deployment_id = ${d.deploymentId}`);
    if (Number(n.rows[0]!.n) >= max) return "too_many";
    // A claim is not control: one never proved for an hour, or suspended (its record gone), gives
    // way to a new claim, whose owner then proves control with a token of their own.
    const r = await tx.execute(sql`
      insert into custom_domains (domain, deployment_id, token) values (${d.domain}, ${d.deploymentId}, ${d.token})
      on conflict (domain) do update
        set deployment_id = excluded.deployment_id, token = excluded.token, status = 'pending', verified_at = null,
            checked_at = null, missing_since = null, created_at = now()
        where custom_domains.deployment_id <> excluded.deployment_id
          and (custom_domains.status = 'suspended' or (custom_domains.status = 'pending' and custom_domains.created_at < now() - interval '1 hour'))`);
    return r.rowCount === 1 ? "added" : "taken";
  });
}

export async function removeDomain(db: Db, deploymentId: string, domain: string): Promise<boolean> {
  const r = await db.execute(sql`delete from custom_domains where deployment_id = ${deploymentId} and domain = ${domain}`);
  return (r.rowCount ?? 0) > 0;
}

/**
 * What a check of the domain's TXT record found: present (verified from now, the grace period
 * reset) or missing (a verified domain starts its grace period; past `graceMs`, suspended). The
 * domain's status after it.
 */
export async function recordCheck(
  db: Db,
  checked: Pick<DomainRow, "domain" | "token" | "deploymentId">,
  present: boolean | "failed",
  graceMs: number,
): Promise<DomainRow | undefined> {
  // Only the claim that was checked: a domain removed and added again since has a token of its own.
  const same = sql`domain = ${checked.domain} and token = ${checked.token} and deployment_id = ${checked.deploymentId}`;
  const r =
    present === "failed"
      ? // A resolver that failed says nothing about the record; the domain waits its turn again.
        await db.execute<Raw>(sql`update custom_domains set checked_at = now() where ${same} returning ${COLUMNS}`)
      : present
        ? await db.execute<Raw>(sql`
          update custom_domains set status = 'verified', verified_at = coalesce(verified_at, now()), checked_at = now(), missing_since = null
          where ${same} returning ${COLUMNS}`)
        : await db.execute<Raw>(sql`
          update custom_domains set checked_at = now(),
            missing_since = case when status = 'pending' then null else coalesce(missing_since, now()) end,
            status = case
              when status = 'verified' and coalesce(missing_since, now()) <= now() - make_interval(secs => ${graceMs / 1000}) then 'suspended'
              else status end
          where ${same} returning ${COLUMNS}`);
  return r.rows[0] && row(r.rows[0]);
}

/** A domain whose owner left Pro stops routing (its record is still checked; back on Pro, Verify routes it again). */
export async function suspendUnlessOwnedBy(db: Db, owners: readonly string[]): Promise<number> {
  const r = await db.execute(sql`
    update custom_domains c set status = 'suspended' from deployments d
    where d.id = c.deployment_id and c.status <> 'suspended' and d.user_id <> all(${sql.param([...owners])}::text[])`);
  return r.rowCount ?? 0;
}

/** Claims never proved within `days` go, so nobody holds a domain they do not control for long. */
export async function deleteStalePending(db: Db, days: number): Promise<number> {
  const r = await db.execute(sql`
    delete from custom_domains where status = 'pending' and created_at < now() - make_interval(days => ${days})`);
  return r.rowCount ?? 0;
}

/** These owners' domains not checked for `everyMs` (never checked first). */
export async function dueForCheck(db: Db, owners: readonly string[], everyMs: number, limit = 500): Promise<DomainRow[]> {
  const r = await db.execute<Raw>(sql`
    select c.domain, c.deployment_id, c.token, c.status, c.verified_at, c.checked_at, c.missing_since
    from custom_domains c join deployments d on d.id = c.deployment_id
    where d.user_id = any(${sql.param([...owners])}::text[])
      and (c.checked_at is null or c.checked_at <= now() - make_interval(secs => ${everyMs / 1000}))
    order by c.checked_at nulls first limit ${limit}`);
  return r.rows.map(row);
}

/** The deployment a domain routes to, whatever its status. */
export async function routeOf(
  db: Db,
  domain: string,
): Promise<{ proxyId: string; deploymentId: string; status: DomainRow["status"] } | undefined> {
  const r = await db.execute<{ proxy_id: string; deployment_id: string; status: DomainRow["status"] }>(sql`
    select d.proxy_id, c.deployment_id, c.status from custom_domains c join deployments d on d.id = c.deployment_id
    where c.domain = ${domain}`);
  const x = r.rows[0];
  return x && { proxyId: x.proxy_id, deploymentId: x.deployment_id, status: x.status };
}
