import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDate } from "~/shared/format.js";
import { createTestApp, postJson, signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import { waitFor } from "~support/wait.js";
import { BILLING_TEXT, type CurrentSubscription, type SubscriptionView } from "~/shared/billing.js";
import { SLEEP_TEXT, type DeploymentView } from "~/shared/deployments.js";

// Billing on a real PostgreSQL: the built-in test-mode provider end to end, and the hosting limits
// that follow the plan. Stripe: stripe.int.test.ts.

const current = async (c: Client) =>
  ((await (await c.get("/api/subscriptions/current")).json()) as { subscription: SubscriptionView }).subscription;
/** What the server says the subscription means: the plan in force, its standing, whether Cancel is offered. */
const meaning = async (c: Client) => {
  const { plan, standing, canCancel } = (await (await c.get("/api/subscriptions/current")).json()) as CurrentSubscription;
  return { plan, standing, canCancel };
};
const checkout = (c: Client) => c.post("/api/subscriptions/checkout", { plan: "pro", period: "monthly" });
const urlOf = async (r: Response) => ((await r.json()) as { url: string }).url;

describe("test mode (no Stripe keys)", () => {
  let t: TestApp;
  let repo: FixtureRepo;
  beforeAll(async () => {
    t = await createTestApp({ GIT_ALLOW_FILE: "on" });
    repo = await createFixtureRepo();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await repo?.cleanup();
  });

  it("asks for a login without a session", async () => {
    expect((await t.app.request("/api/subscriptions/current")).status).toBe(401);
    expect((await postJson(t.app, "/api/subscriptions/checkout", { plan: "pro", period: "monthly" })).status).toBe(401);
  });

  it("subscribes through the test-mode checkout: the plan changes only when the payment is confirmed", async () => {
    const ana = await signedInUser(t, "ana@example.com");
    expect(await current(ana)).toEqual({
      status: "free",
      plan: expect.objectContaining({ id: "free", name: "Free", price_monthly: 0 }),
      period: null,
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    });
    expect(await meaning(ana)).toEqual({ plan: "free", standing: "free", canCancel: false });
    expect(((await (await ana.get("/api/subscriptions/stripe-status")).json()) as { success: boolean }).success).toBe(false);

    // A double click: both requests get the same checkout.
    const [a, b] = await Promise.all([checkout(ana), checkout(ana)]);
    const url = await urlOf(a);
    expect(url).toMatch(/^http:\/\/localhost:3000\/subscription\/test-checkout\/tcs_[0-9a-f]{32}$/);
    expect(await urlOf(b)).toBe(url);
    const id = url.split("/").pop()!;

    // Reaching the success URL grants nothing.
    await ana.get("/subscription?checkout_success=true");
    expect((await current(ana)).plan.id).toBe("free");
    // Nobody else can see or confirm it.
    const eve = await signedInUser(t, "eve@example.com");
    expect((await eve.get(`/api/subscriptions/test-checkout/${id}`)).status).toBe(404);
    expect((await eve.post(`/api/subscriptions/test-checkout/${id}/confirm`)).status).toBe(404);

    expect(await (await ana.get(`/api/subscriptions/test-checkout/${id}`)).json()).toMatchObject({
      id,
      status: "open",
      plan: { id: "pro", price_monthly: 20 },
    });
    const done = await ana.post(`/api/subscriptions/test-checkout/${id}/confirm`);
    expect(await done.json()).toEqual({ success: true, url: "/subscription?checkout_success=true" });
    expect((await ana.post(`/api/subscriptions/test-checkout/${id}/confirm`)).status).toBe(409); // once
    const pro = await current(ana);
    expect(pro).toMatchObject({
      status: "active",
      plan: { id: "pro", name: "Pro", price_monthly: 20 },
      period: "month",
      cancelAtPeriodEnd: false,
    });
    expect(await meaning(ana)).toEqual({ plan: "pro", standing: "good", canCancel: true });
    const days = (new Date(pro.currentPeriodEnd!).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(27);
    expect(days).toBeLessThan(32);
    expect(await (await ana.get("/api/subscriptions/stripe-status")).json()).toMatchObject({
      success: true,
      subscription: { status: "active", productName: "Pro", interval: "month" },
    });
    expect((await checkout(ana)).status).toBe(409); // already Pro

    // Cancel: Pro until the period end, then Free.
    const cancel = await ana.post("/api/subscriptions/cancel");
    expect(((await cancel.json()) as { message: string }).message).toBe(BILLING_TEXT.cancelMessage(formatDate(pro.currentPeriodEnd!)));
    expect(await current(ana)).toMatchObject({ plan: { id: "pro" }, cancelAtPeriodEnd: true });
    expect(await meaning(ana)).toEqual({ plan: "pro", standing: "good", canCancel: false });
    expect((await ana.post("/api/subscriptions/test-clock/end-period")).status).toBe(200);
    expect(await current(ana)).toMatchObject({ status: "free", plan: { id: "free" } });
    expect((await ana.post("/api/subscriptions/cancel")).status).toBe(400);
  });

  it("an API body over 1 MB is refused with 413 before anything reads it", async () => {
    const r = await t.app.request("/api/webhooks/stripe", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) },
      body: "x".repeat(2 * 1024 * 1024),
    });
    expect(r.status).toBe(413);
  });

  it("leaving the checkout changes nothing", async () => {
    const bo = await signedInUser(t, "bo@example.com");
    const id = (await urlOf(await checkout(bo))).split("/").pop()!;
    expect(await (await bo.post(`/api/subscriptions/test-checkout/${id}/cancel`)).json()).toEqual({
      success: true,
      url: "/subscription?checkout_canceled=true",
    });
    expect((await bo.post(`/api/subscriptions/test-checkout/${id}/confirm`)).status).toBe(409);
    expect((await current(bo)).plan.id).toBe("free");
    expect((await bo.post("/api/subscriptions/checkout", { plan: "gold", period: "monthly" })).status).toBe(400);
  });

  it("hosting limits follow the plan: Pro runs more; when Pro ends the extra awake deployments sleep (Free keeps 3, 1 awake)", async () => {
    const cy = await signedInUser(t, "cyril@example.com");
    for (const name of ["one", "two"]) await registerOwnedServer(cy, `cyril/${name}`);
    const deploy = (name: string) => cy.post(`/api/deploy/cyril/${name}`, { repositoryUrl: repo.url, env: {} });
    expect((await deploy("one")).status).toBe(202);
    const refused = await deploy("two");
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe(SLEEP_TEXT.noRoom("Free", 1));

    await cy.post(`/api/subscriptions/test-checkout/${(await urlOf(await checkout(cy))).split("/").pop()}/confirm`);
    expect((await deploy("two")).status).toBe(202); // at once
    await waitForStatus(cy, "cyril/one", "running", 60_000);
    const two = await waitForStatus(cy, "cyril/two", "running", 60_000);

    await cy.post("/api/subscriptions/cancel");
    await cy.post("/api/subscriptions/test-clock/end-period");
    // Free keeps both (3 deployments) but runs one: the least recently used (the older, never called) sleeps, kept as it is.
    const slept = (await (await cy.get("/api/deployments/server/cyril/one")).json()) as { deployments: DeploymentView[] };
    expect(slept.deployments[0]).toMatchObject({ status: "sleeping", status_detail: null });
    await waitFor("its process stopped", async () => !t.runtime.runner.runs(slept.deployments[0]!.id) || undefined, 10_000);
    expect((await (await cy.get("/api/deployments/server/cyril/two")).json()) as { deployments: DeploymentView[] }).toMatchObject({
      deployments: [{ id: two.id, status: "running" }],
    });
  });
});
