import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bucketOf, emptyBuckets } from "./histogram.js";
import { toolStats } from "./service.js";
import { db, useStoreFixture } from "./store-fixture.js";

// The public per-tool figures on a real PostgreSQL, from tool_stats rows inserted by hand.

useStoreFixture();

describe("tool figures", () => {
  it("adds hours and deployments up, leaves out older than 24 h and tools the server never listed", async () => {
    await db.execute(sql`insert into mcp_servers (id, name, description, category, type, source, tags, is_approved)
      values ('figures', 'figures', 'd', 'Featured', 'Reference', 'official', '{}', true) on conflict do nothing`);
    await db.execute(sql`insert into catalog_listings (server_id, approved, approved_at)
      values ('figures', ${JSON.stringify({ tools: [{ name: "search" }, { name: "idle" }], prompts: [], resources: [] })}::jsonb, now())`);
    const fast = emptyBuckets();
    fast[bucketOf(15)] = 10;
    const slow = emptyBuckets();
    slow[bucketOf(40)] = 10;
    const hourAgo = (h: number) => sql`date_trunc('hour', now()) - make_interval(hours => ${h})`;
    const arr = (b: number[]) => `{${b.join(",")}}`;
    await db.execute(sql`insert into tool_stats (server_kind, server_ref, tool, hour, calls, errors, buckets) values
      ('catalog', 'figures', 'search', ${hourAgo(0)}, 10, 1, ${arr(fast)}::int[]),
      ('catalog', 'figures', 'search', ${hourAgo(1)}, 10, 0, ${arr(slow)}::int[]),
      ('catalog', 'figures', 'search', ${hourAgo(30)}, 100, 100, ${arr(slow)}::int[]),
      ('catalog', 'figures', '<b>made-up</b>', ${hourAgo(0)}, 7, 7, ${arr(fast)}::int[])`);
    const s = await toolStats(db, { kind: "catalog", ref: "figures" });
    // Ranks 10 and 19 of 20: the top of (10, 20] ms, then 9/10 of the way through (20, 50] ms.
    expect(s).toEqual([{ name: "search", calls: 20, error_rate: 0.05, p50_ms: 20, p95_ms: 47 }]);
  });

  it("weighs each user once: one user failing every call, or calling slowly, does not move what the others see", async () => {
    await db.execute(sql`insert into mcp_servers (id, name, description, category, type, source, tags, is_approved)
      values ('weighed', 'weighed', 'd', 'Featured', 'Reference', 'official', '{}', true)`);
    await db.execute(
      sql`insert into catalog_listings (server_id, approved, approved_at) values ('weighed', ${JSON.stringify({ tools: [{ name: "t" }], prompts: [], resources: [] })}::jsonb, now())`,
    );
    const at = (ms: number, n: number) => {
      const b = emptyBuckets();
      b[bucketOf(ms)] = n;
      return `{${b.join(",")}}`;
    };
    const row = (user: string, calls: number, errors: number, ms: number) =>
      sql`('catalog', 'weighed', 't', date_trunc('hour', now()), ${user}, ${calls}, ${errors}, ${at(ms, calls)}::int[])`;
    await db.execute(
      sql`insert into tool_stats (server_kind, server_ref, tool, hour, user_id, calls, errors, buckets) values ${sql.join([row("alice", 10, 0, 15), row("bob", 10, 0, 15)], sql`, `)}`,
    );
    const before = (await toolStats(db, { kind: "catalog", ref: "weighed" }))[0]!;
    // Mallory: a wrong key (every call fails), 1,000 slow calls.
    await db.execute(
      sql`insert into tool_stats (server_kind, server_ref, tool, hour, user_id, calls, errors, buckets) values ${row("mallory", 1000, 1000, 20_000)}`,
    );
    const after = (await toolStats(db, { kind: "catalog", ref: "weighed" }))[0]!;
    expect(after.calls).toBe(1020);
    expect(after.error_rate).toBe(before.error_rate);
    expect(after.p50_ms).toBe(before.p50_ms);
    expect(after.p95_ms).toBe(before.p95_ms);
  });
});
