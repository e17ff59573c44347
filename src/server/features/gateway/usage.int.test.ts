// 'Total Usage' written by several gateways at once (a cluster): their batches touch the same
// servers in whatever order requests came, and must never deadlock each other (PostgreSQL would
// abort one, delaying its counts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../tests/support/db.js";
import { addUsage } from "./repo.js";

let db: TestDatabase;
const SERVERS = ["u-a", "u-b", "u-c", "u-d"];

beforeAll(async () => {
  db = await createTestDatabase();
  for (const id of SERVERS) {
    await db.database.pool.query(`insert into mcp_servers (id, name, description, category, type, source, tags, is_approved) values ($1, $1, 'd', 'Featured', 'Reference', 'official', '{}', true)`, [id]);
  }
});
afterAll(async () => {
  await db?.drop();
});

describe("usage batches from several gateways", () => {
  it("never deadlock, whatever order their servers came in, and every count lands", async () => {
    const batch = (order: string[]) => new Map(order.map((id) => [`catalog\u0000${id}`, { kind: "catalog" as const, ref: id, n: 1 }]));
    const forward = batch(SERVERS);
    const backward = batch([...SERVERS].reverse());
    for (let round = 0; round < 40; round++) await Promise.all([addUsage(db.database.db, forward), addUsage(db.database.db, backward), addUsage(db.database.db, forward)]);
    const { rows } = await db.database.pool.query<{ use_count: number }>("select use_count from mcp_servers where id = any($1) order by id", [SERVERS]);
    expect(rows.map((r) => Number(r.use_count))).toEqual(SERVERS.map(() => 120));
  });
});
