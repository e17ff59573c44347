import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { connect, type Database } from "../db/client.js";
import { PgRateLimiter } from "./rate-limit.js";

// The fixed windows on a real database, through two limiters with pools of their own: what two
// web processes see.

let t: TestDatabase;
let other: Database;
let a: PgRateLimiter;
let b: PgRateLimiter;
const rows = async (key: string) => (await t.database.pool.query("select count, reset_at from rate_limits where key = $1", [key])).rows;

beforeAll(async () => {
  t = await createTestDatabase();
  other = connect(t.url, { max: 5 });
  a = new PgRateLimiter(t.database.db);
  b = new PgRateLimiter(other.db);
});
afterAll(async () => {
  await other?.close();
  await t?.drop();
});

describe("PgRateLimiter", () => {
  it("allows the limit, refuses the next with the seconds left in the window, and leaves other keys alone", async () => {
    for (let i = 0; i < 3; i++) expect(await a.hit("k1", 3, 60_000)).toEqual({ ok: true, retryAfterSec: 0 });
    const refused = await a.hit("k1", 3, 60_000);
    expect(refused.ok).toBe(false);
    expect(refused.retryAfterSec).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSec).toBeLessThanOrEqual(60);
    expect((await a.hit("k2", 3, 60_000)).ok).toBe(true);
  });

  it("opens a new window once the last one has ended", async () => {
    for (let i = 0; i < 2; i++) expect((await a.hit("short", 2, 400)).ok).toBe(true);
    const refused = await a.hit("short", 2, 400);
    expect(refused).toEqual({ ok: false, retryAfterSec: 1 });
    await new Promise((r) => setTimeout(r, 450));
    expect((await a.hit("short", 2, 400)).ok).toBe(true);
    expect((await rows("short"))[0].count).toBe(1);
  });

  it("counts the hits of two processes together, also when they arrive at the same moment", async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).hit("shared", 10, 60_000)));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect((await b.hit("shared", 10, 60_000)).ok).toBe(false);
    expect((await rows("shared"))[0].count).toBe(31);
  });

  it("stores a key of any length (an e-mail address is whatever the client sent) as one small row", async () => {
    const long = `/sign-in/email|acct|${"x".repeat(100_000)}@example.com`;
    expect((await a.hit(long, 1, 60_000)).ok).toBe(true);
    expect((await b.hit(long, 1, 60_000)).ok).toBe(false);
    const stored = (await t.database.pool.query("select key from rate_limits where key like 'sha256:%'")).rows;
    expect(stored).toHaveLength(1);
    expect(stored[0].key.length).toBeLessThan(100);
  });

  it("deletes ended windows now and then, so the table does not grow without end", async () => {
    await t.database.pool.query(
      "insert into rate_limits (key, count, reset_at) values ('ended-1', 5, now() - interval '1 second'), ('ended-2', 1, now() - interval '1 hour')",
    );
    const fresh = new PgRateLimiter(t.database.db); // a process that just started prunes with its first hit
    await fresh.hit("live", 5, 60_000);
    const deadline = Date.now() + 2000;
    while ((await rows("ended-2")).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await rows("ended-1")).toEqual([]);
    expect(await rows("ended-2")).toEqual([]);
    expect(await rows("live")).toHaveLength(1);
    expect(await rows("k2")).toHaveLength(1); // a window still running stays
  });
});
