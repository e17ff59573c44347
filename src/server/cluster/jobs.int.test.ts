import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "~support/app.js";
import { createTestDatabase, type TestDatabase } from "~support/db.js";
import { connect, type Database } from "../db/client.js";
import { SWEEP_JOB, type PlanLimits } from "../features/billing/limits.js";
import { claimRun, jobStatus } from "./jobs.js";

describe("claimRun", () => {
  let t: TestDatabase;
  let pools: Database[];
  beforeAll(async () => {
    t = await createTestDatabase();
    pools = Array.from({ length: 4 }, () => connect(t.url, { max: 2 }));
  });
  afterAll(async () => {
    for (const p of pools ?? []) await p.close();
    await t?.drop();
  });

  it("lets exactly one of several processes asking at once run the job per interval", async () => {
    const ask = () => Promise.all(pools.map((p, i) => claimRun(p.db, "job-a", 500, `host:${i}`)));
    const first = await ask();
    expect(first.filter(Boolean)).toHaveLength(1);
    const winner = first.indexOf(true);
    // Within the interval nobody wins, the winner included.
    expect((await ask()).filter(Boolean)).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 520));
    expect((await ask()).filter(Boolean)).toHaveLength(1);
    const status = await jobStatus(t.database.db, "job-a");
    expect(status?.runs).toBe(2);
    expect(status?.ranBy).toMatch(/^host:\d$/);
    expect(winner).toBeGreaterThanOrEqual(0);
  });

  it("keeps jobs apart by name", async () => {
    expect(await claimRun(t.database.db, "job-b", 60_000)).toBe(true);
    expect(await claimRun(t.database.db, "job-c", 60_000)).toBe(true);
    expect(await claimRun(t.database.db, "job-b", 60_000)).toBe(false);
  });
});

describe("the billing sweep in a cluster of two processes", () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({ BILLING_SWEEP_MS: "200" });
    b = await createTestApp({ BILLING_SWEEP_MS: "200" }, { sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const limitsOf = (t: TestApp) => (t.services.billing as unknown as { limits: PlanLimits }).limits;

  it("runs once per interval in the whole cluster, not once per process; an explicit sweep always runs", async () => {
    const sweepsA = vi.spyOn(limitsOf(a), "sweep");
    const sweepsB = vi.spyOn(limitsOf(b), "sweep");
    a.services.billing.start();
    b.services.billing.start();
    await new Promise((r) => setTimeout(r, 2100)); // ten intervals: each process ticks about ten times
    a.services.billing.close();
    b.services.billing.close();
    const total = sweepsA.mock.calls.length + sweepsB.mock.calls.length;
    // Once per process would be about 20; once per cluster about 10 (runs are at least 0.9 intervals apart).
    expect(total).toBeGreaterThanOrEqual(5);
    expect(total).toBeLessThanOrEqual(12);
    const status = await jobStatus(a.db.database.db, SWEEP_JOB);
    expect(status?.runs).toBe(total);
    // The command line's and the tests' sweeps are not claimed: they run right away.
    await a.services.billing.sweep();
    await b.services.billing.sweep();
    expect(sweepsA.mock.calls.length + sweepsB.mock.calls.length).toBe(total + 2);
  });
});
