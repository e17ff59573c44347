// 'Total Usage' written by several gateways at once (a cluster): their batches touch the same
// servers in whatever order requests came, and must never deadlock each other (PostgreSQL would
// abort one, delaying its counts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { addUsage, slidePopularity } from "./repo.js";

let db: TestDatabase;
const SERVERS = ["u-a", "u-b", "u-c", "u-d"];

beforeAll(async () => {
  db = await createTestDatabase();
  for (const id of SERVERS) {
    await db.database.pool.query(
      `insert into mcp_servers (id, name, description, category, type, source, tags, is_approved) values ($1, $1, 'd', 'Featured', 'Reference', 'official', '{}', true)`,
      [id],
    );
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
    for (let round = 0; round < 40; round++)
      await Promise.all([addUsage(db.database.db, forward), addUsage(db.database.db, backward), addUsage(db.database.db, forward)]);
    const { rows } = await db.database.pool.query<{ use_count: number }>(
      "select use_count from mcp_servers where id = any($1) order by id",
      [SERVERS],
    );
    expect(rows.map((r) => Number(r.use_count))).toEqual(SERVERS.map(() => 120));
  });
});

describe("popularity (recent users)", () => {
  const users = async (id: string) =>
    Number(
      (await db.database.pool.query<{ recent_users: number }>("select recent_users from mcp_servers where id = $1", [id])).rows[0]!
        .recent_users,
    );
  const one = (ref: string, userId: string, n: number) =>
    new Map([[`catalog\u0000${ref}\u0000${userId}`, { kind: "catalog" as const, ref, userId, n }]]);

  it("counts people, not requests: one user calling in a loop counts once; a second user makes two", async () => {
    for (let i = 0; i < 50; i++) await addUsage(db.database.db, one("u-a", "looping-user", 100));
    expect(await users("u-a")).toBe(1);
    await addUsage(db.database.db, one("u-a", "second-user", 1));
    expect(await users("u-a")).toBe(2);
    // 'Total Usage' stays exact.
    const { rows } = await db.database.pool.query<{ use_count: number }>("select use_count from mcp_servers where id = 'u-a'");
    expect(Number(rows[0]!.use_count)).toBe(120 + 5001);
  });

  it("forgets users whose last use left the 30-day window", async () => {
    await addUsage(db.database.db, one("u-b", "old-user", 1));
    await addUsage(db.database.db, one("u-b", "new-user", 1));
    expect(await users("u-b")).toBe(2);
    await db.database.pool.query("update usage_daily set day = date_trunc('day', now()) - interval '30 days' where user_id = 'old-user'");
    await slidePopularity(db.database.db);
    expect(await users("u-b")).toBe(1);
  });
});
