import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";

// Fixed-window counters shared by every web process (the rate_limits table): a window opens with
// a key's first hit and lasts windowMs; each hit is one atomic upsert that counts it and says how
// far the window has got, so parallel hits through any number of processes are all counted. The
// database's clock decides, so processes whose clocks differ still agree.

export interface RateLimitResult {
  ok: boolean;
  retryAfterSec: number;
}

export interface RateLimiter {
  /** Counts one hit on `key`: ok while the window holds at most `limit` hits, else how long until it ends. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult>;
}

/** What taking `n` hits at once left: the window's count with them, and how long the window lasts yet. */
export interface TakeResult {
  count: number;
  msLeft: number;
}

/** Ended windows are deleted at most this often per process, so the table holds only live ones. */
const PRUNE_EVERY_MS = 60_000;
/** Keys carry what clients send (an e-mail address of any length): longer ones are stored hashed, as an index entry must stay small. */
const MAX_KEY_LENGTH = 200;

export class PgRateLimiter implements RateLimiter {
  private lastPrune = 0;

  constructor(private readonly db: Db) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const row = await this.take(key, 1, windowMs);
    if (row.count > limit) return { ok: false, retryAfterSec: Math.max(1, Math.ceil(row.msLeft / 1000)) };
    return { ok: true, retryAfterSec: 0 };
  }

  /** Counts `n` hits on `key` at once (a gateway leasing a share of a budget): one atomic upsert. */
  async take(key: string, n: number, windowMs: number): Promise<TakeResult> {
    this.prune();
    if (key.length > MAX_KEY_LENGTH) key = `sha256:${createHash("sha256").update(key).digest("base64url")}`;
    const r = await this.db.execute<{ count: number; ms_left: number }>(sql`
      insert into rate_limits (key, count, reset_at) values (${key}, ${n}, now() + make_interval(secs => ${windowMs / 1000}))
      on conflict (key) do update set
        count = case when rate_limits.reset_at <= now() then ${n} else rate_limits.count + ${n} end,
        reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
      returning count, (extract(epoch from reset_at - now()) * 1000)::float8 as ms_left`);
    const row = r.rows[0]!;
    return { count: Number(row.count), msLeft: Math.max(0, row.ms_left) };
  }

  /** Deletes ended windows now and then, without holding up the hit. */
  private prune() {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.db.execute(sql`delete from rate_limits where reset_at < now()`).catch(() => {
      // Tried again next minute; a failing database shows in the hit itself.
    });
  }
}
