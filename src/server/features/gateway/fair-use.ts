// Fair use (docs/gateway.md#fair-use): requests a minute to one deployment, and with one
// credential, by the deployment owner's plan, counted across every gateway process.
//
// The count lives in PostgreSQL (the rate_limits table, one window per key), but not one write a
// request: a process leases a share of the window's budget (a twentieth of it) with one atomic
// upsert and spends it in memory. The cluster never admits more than the limit: a share is only
// granted from what is left, and what a process leased but did not spend is lost to the others
// until the window ends. At the 1,200 a minute of Free that is one write per 60 requests.

export const FAIR_USE_WINDOW_MS = 60_000;
/** how long an owner's plan is taken as known */
const PLAN_TTL_MS = 30_000;
/** buckets kept in memory at most (one per deployment and per credential seen in a window) */
const MAX_BUCKETS = 100_000;

export type Plan = "free" | "pro";

export interface FairUseDeps {
  /** requests a minute by plan (0: no limit) */
  rates: Record<Plan, number>;
  planOf: (userId: string) => Promise<Plan>;
  /** counts `n` hits on `key` in its window cluster-wide (http/rate-limit.ts PgRateLimiter.take) */
  take: (key: string, n: number, windowMs: number) => Promise<{ count: number; msLeft: number }>;
  now?: () => number;
}

export type Verdict = { ok: true } | { ok: false; retryAfterSec: number; scope: "deployment" | "credential"; limit: number };

const OK: Verdict = { ok: true };

class Bucket {
  /** when this process's view of the window ends (the cluster's window, as PostgreSQL said) */
  windowEnd = 0;
  granted = 0;
  used = 0;
  /** the window's budget is spent: refused until then */
  blockedUntil = 0;
  leasing: Promise<void> | undefined;
}

export class FairUse {
  private readonly buckets = new Map<string, Bucket>();
  private readonly plans = new Map<string, { plan: Plan; until: number }>();
  private readonly now: () => number;

  constructor(private readonly d: FairUseDeps) {
    this.now = d.now ?? Date.now;
  }

  /**
   * One request to deployment `deploymentId` of `ownerId`, with the credential `credential`:
   * admitted, or refused with how long until its window ends. Synchronous while the process holds
   * budget (the hot path); a promise when it has to lease more.
   */
  check(deploymentId: string, ownerId: string, credential: string): Verdict | Promise<Verdict> {
    const known = this.plans.get(ownerId);
    if (known && known.until > this.now()) return this.checkAt(this.d.rates[known.plan], deploymentId, credential);
    return this.d.planOf(ownerId).then((plan) => {
      this.plans.set(ownerId, { plan, until: this.now() + PLAN_TTL_MS });
      if (this.plans.size > MAX_BUCKETS) this.plans.delete(this.plans.keys().next().value!);
      return this.checkAt(this.d.rates[plan], deploymentId, credential);
    });
  }

  private checkAt(limit: number, deploymentId: string, credential: string): Verdict | Promise<Verdict> {
    if (limit <= 0) return OK;
    const first = this.spend(`gw:d:${deploymentId}`, limit, "deployment");
    const second = (v: Verdict) => (v.ok ? this.spend(`gw:k:${credential}`, limit, "credential") : v);
    return first instanceof Promise ? first.then(second) : second(first);
  }

  /** One token of a bucket: from this process's share, else a new share leased from the cluster's budget. */
  private spend(key: string, limit: number, scope: "deployment" | "credential", attempt = 0): Verdict | Promise<Verdict> {
    const now = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) this.evict(now);
      this.buckets.set(key, (b = new Bucket()));
    }
    if (b.windowEnd && now >= b.windowEnd && !b.leasing) {
      b.windowEnd = 0;
      b.granted = 0;
      b.used = 0;
      b.blockedUntil = 0;
    }
    if (b.blockedUntil > now) return { ok: false, retryAfterSec: Math.max(1, Math.ceil((b.blockedUntil - now) / 1000)), scope, limit };
    if (b.used < b.granted) {
      b.used++;
      return OK;
    }
    // Requests arriving while a share is being leased wait for that one lease.
    const bucket = b;
    bucket.leasing ??= this.lease(key, bucket, limit).finally(() => (bucket.leasing = undefined));
    return bucket.leasing.then(() =>
      attempt < 3 ? this.spend(key, limit, scope, attempt + 1) : { ok: false as const, retryAfterSec: 1, scope, limit },
    );
  }

  private async lease(key: string, b: Bucket, limit: number): Promise<void> {
    const share = Math.max(1, Math.ceil(limit / 20));
    const { count, msLeft } = await this.d.take(key, share, FAIR_USE_WINDOW_MS);
    const now = this.now();
    // Granted only from what the cluster had left before this share.
    const grantable = Math.max(0, Math.min(share, limit - (count - share)));
    if (count === share || b.windowEnd === 0) {
      // The cluster's window began with this share (or this process starts on it): nothing older counts.
      b.granted = 0;
      b.used = 0;
    }
    b.windowEnd = now + msLeft;
    if (grantable > 0) b.granted += grantable;
    else b.blockedUntil = now + Math.max(1000, msLeft);
  }

  /** Drops buckets whose window ended (and, if that is not enough, the oldest). */
  private evict(now: number): void {
    for (const [k, b] of this.buckets) if (!b.leasing && b.windowEnd && b.windowEnd <= now) this.buckets.delete(k);
    while (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
  }
}
