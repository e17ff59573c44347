import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";

/** How many deployments are in each status, cluster-wide (a scrape reads it; one small grouped query). */
export async function deploymentsByStatus(db: Db): Promise<Map<string, number>> {
  const r = await db.execute<{ status: string; n: number }>(sql`select status, count(*)::int as n from deployments group by status`);
  return new Map(r.rows.map((row) => [row.status, Number(row.n)]));
}
