// What a server's page says about its hosting: how often it was deployed, whether one of people's
// deployments of it runs, and for a catalogue entry its public listing facts, in one read.
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { PLATFORM_USER_ID } from "./listings.js";
import type { ServerRef } from "./repo.js";

/** How often a server was deployed, and whether one of people's deployments of it runs (not the platform's checks). */
function hostingColumns(server: ServerRef) {
  return sql`(select count(*)::int from deploy_actions where server_kind = ${server.kind} and server_ref = ${server.ref}) as deploys,
           exists (select 1 from deployments where server_kind = ${server.kind} and server_ref = ${server.ref} and status = 'running' and user_id <> ${PLATFORM_USER_ID}) as running`;
}

export async function hostingSummary(db: Db, server: ServerRef) {
  const r = await db.execute<{ deploys: number; running: boolean }>(sql`select ${hostingColumns(server)}`);
  return r.rows[0]!;
}

/** A catalogue entry's hosting figures and its public listing facts (catalog_listings), in one read: its page. */
export async function catalogHostingRow(db: Db, ref: string) {
  const r = await db.execute<{
    deploys: number;
    running: boolean;
    approved: unknown;
    approved_at: string | null;
    outcome: string | null;
    outcome_tools: number | null;
    outcome_detail: string | null;
    checked_at: string | null;
  }>(sql`
    select ${hostingColumns({ kind: "catalog", ref })}, l.approved, l.approved_at, l.outcome, l.outcome_tools, l.outcome_detail, l.checked_at
    from (select 1) one left join catalog_listings l on l.server_id = ${ref}`);
  // A raw statement's timestamps come back as text.
  const row = r.rows[0]!;
  const date = (v: string | null) => (v === null ? null : new Date(v));
  return { ...row, approved_at: date(row.approved_at), checked_at: date(row.checked_at) };
}
