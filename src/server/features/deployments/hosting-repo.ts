// What a server's page says about its hosting: how often it was deployed, whether one of people's
// deployments of it runs, and for a catalogue entry its public listing facts, in one read.
import { eq, sql, type Placeholder } from "drizzle-orm";
import { prepared, type Db } from "../../db/client.js";
import { catalogListings } from "./schema.js";
import { PLATFORM_USER_ID } from "./definitions/listings.js";
import type { ServerRef } from "./repo.js";

/** How often a server was deployed, and whether one of people's deployments of it runs (not the platform's checks). */
function hostingFacts(server: { kind: ServerRef["kind"]; ref: string | Placeholder }) {
  return {
    deploys: sql<number>`(select count(*)::int from deploy_actions where server_kind = ${server.kind} and server_ref = ${server.ref})`,
    running: sql<boolean>`exists (select 1 from deployments where server_kind = ${server.kind} and server_ref = ${server.ref} and status = 'running' and user_id <> ${PLATFORM_USER_ID})`,
  };
}

export async function hostingSummary(db: Db, server: ServerRef) {
  const [r] = await db.select(hostingFacts(server)).from(sql`(select 1) one`);
  return r!;
}

/** A catalogue entry's hosting figures and its public listing facts (catalog_listings), in one read: its page. */
export async function catalogHostingRow(db: Db, ref: string) {
  // Every server page reads it: a prepared statement, planned once per connection.
  const [row] = await prepared(db, "catalog_hosting_row", (d) => {
    const id = sql.placeholder("ref");
    return d
      .select({
        ...hostingFacts({ kind: "catalog", ref: id }),
        approved: catalogListings.approved,
        approved_at: catalogListings.approvedAt,
        outcome: catalogListings.outcome,
        outcome_tools: catalogListings.outcomeTools,
        outcome_detail: catalogListings.outcomeDetail,
        checked_at: catalogListings.checkedAt,
      })
      .from(sql`(select 1) one`)
      .leftJoin(catalogListings, eq(catalogListings.serverId, id))
      .prepare("catalog_hosting_row");
  }).execute({ ref });
  return row!;
}
