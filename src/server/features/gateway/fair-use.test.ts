import { describe, expect, it } from "vitest";
import { FAIR_USE_WINDOW_MS, FairUse, type FairUseDeps, type Verdict } from "./fair-use.js";

// Two gateway processes (two FairUse instances) against one shared count, as the rate_limits
// table holds it: a window per key, opened by its first hit.
function sharedCounts(clock: { now: number }) {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let writes = 0;
  const take: FairUseDeps["take"] = async (key, n, windowMs) => {
    writes++;
    let w = windows.get(key);
    if (!w || w.resetAt <= clock.now) windows.set(key, (w = { count: 0, resetAt: clock.now + windowMs }));
    w.count += n;
    return { count: w.count, msLeft: w.resetAt - clock.now };
  };
  return { take, writes: () => writes };
}

const process = (take: FairUseDeps["take"], clock: { now: number }, plans: Record<string, "free" | "pro"> = {}) =>
  new FairUse({ rates: { free: 40, pro: 400 }, planOf: async (u) => plans[u] ?? "free", take, now: () => clock.now });

const verdict = async (v: Verdict | Promise<Verdict>) => v;

describe("fair use across gateway processes", () => {
  it("admits at most the plan's requests a minute to a deployment, whichever process they reach", async () => {
    const clock = { now: 1_000_000 };
    const counts = sharedCounts(clock);
    const [a, b] = [process(counts.take, clock), process(counts.take, clock)];
    let admitted = 0;
    const refused: Verdict[] = [];
    for (let i = 0; i < 100; i++) {
      const v = await verdict((i % 2 ? a : b).check("dep-1", "owner", `key-${i % 3}`));
      if (v.ok) admitted++;
      else refused.push(v);
    }
    expect(admitted).toBeLessThanOrEqual(40);
    // What one process leased but did not spend is lost to the other until the window ends: a few at most.
    expect(admitted).toBeGreaterThanOrEqual(36);
    expect(refused[0]).toEqual({ ok: false, retryAfterSec: 60, scope: "deployment", limit: 40 });
    // Not a write a request: a share of the budget (a twentieth) at a time, for each of the two buckets.
    expect(counts.writes()).toBeLessThanOrEqual(admitted + refused.length);

    // The window ends: the budget is there again.
    clock.now += FAIR_USE_WINDOW_MS + 1;
    expect(await verdict(a.check("dep-1", "owner", "key-0"))).toEqual({ ok: true });
  });

  it("limits one credential across deployments, and follows the owner's plan", async () => {
    const clock = { now: 5_000_000 };
    const counts = sharedCounts(clock);
    const gw = process(counts.take, clock, { paying: "pro" });
    let admitted = 0;
    for (let i = 0; i < 80; i++) if ((await verdict(gw.check(`dep-${i % 8}`, "owner", "one-key"))).ok) admitted++;
    expect(admitted).toBe(40);
    const last = await verdict(gw.check("dep-9", "owner", "one-key"));
    expect(last).toMatchObject({ ok: false, scope: "credential" });
    let pro = 0;
    for (let i = 0; i < 500; i++) if ((await verdict(gw.check("dep-pro", "paying", "pro-key"))).ok) pro++;
    expect(pro).toBe(400);
  });

  it("answers at once from memory while it holds budget, and a limit of 0 is no limit", async () => {
    const clock = { now: 9_000_000 };
    const counts = sharedCounts(clock);
    const gw = process(counts.take, clock);
    await verdict(gw.check("dep-1", "owner", "k"));
    // The plan is known and a share leased: the next requests are answered without waiting.
    expect(gw.check("dep-1", "owner", "k")).toEqual({ ok: true });
    // At Free's default 1,200 a minute, a share is 60 requests: 600 requests cost 20 writes (two buckets).
    const free = new FairUse({ rates: { free: 1200, pro: 12_000 }, planOf: async () => "free", take: counts.take, now: () => clock.now });
    const start = counts.writes();
    for (let i = 0; i < 600; i++) expect((await verdict(free.check("dep-busy", "owner", "busy-key"))).ok).toBe(true);
    expect(counts.writes() - start).toBe(20);
    const open = new FairUse({ rates: { free: 0, pro: 0 }, planOf: async () => "free", take: counts.take, now: () => clock.now });
    const before = counts.writes();
    for (let i = 0; i < 1000; i++) expect((await verdict(open.check("dep-x", "owner", "k"))).ok).toBe(true);
    expect(counts.writes()).toBe(before);
  });
});
