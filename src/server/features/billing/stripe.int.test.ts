import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { startStripeStandIn, type StripeStandIn } from "~support/stripe-stand-in.js";
import { BILLING_TEXT, type CurrentSubscription, type SubscriptionView } from "~/shared/billing.js";
import { projectRoot } from "../../paths.js";

// Billing with Stripe on a real PostgreSQL, through a local stand-in for api.stripe.com, with
// webhooks signed by the stripe package itself. The test mode: billing.int.test.ts.

const current = async (c: Client) =>
  ((await (await c.get("/api/subscriptions/current")).json()) as { subscription: SubscriptionView }).subscription;
/** What the server says the subscription means: the plan in force, its standing, whether Cancel is offered. */
const meaning = async (c: Client) => {
  const { plan, standing, canCancel } = (await (await c.get("/api/subscriptions/current")).json()) as CurrentSubscription;
  return { plan, standing, canCancel };
};
const checkout = (c: Client) => c.post("/api/subscriptions/checkout", { plan: "pro", period: "monthly" });
const urlOf = async (r: Response) => ((await r.json()) as { url: string }).url;

describe("Stripe (through a local stand-in for api.stripe.com)", () => {
  const secret = `whsec_${randomBytes(16).toString("hex")}`;
  let t: TestApp;
  let stripe: StripeStandIn;
  let signer: Stripe;
  const env = () => ({ STRIPE_SECRET_KEY: "sk_test_switchboard", STRIPE_WEBHOOK_SECRET: secret, STRIPE_API_BASE: stripe.url });
  beforeAll(async () => {
    stripe = await startStripeStandIn();
    t = await createTestApp(env());
    signer = new Stripe("sk_test_unused");
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  /** A Stripe event; `at` shifts its creation time in seconds (negative: older). */
  const event = (type: string, object: unknown, at = 0) => ({
    id: `evt_${randomBytes(12).toString("hex")}`,
    object: "event",
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000) + at,
    livemode: false,
    type,
    data: { object },
  });
  const deliver = (payload: string, opts: { secret?: string; timestamp?: number; header?: string | null } = {}) => {
    const header =
      opts.header === undefined
        ? signer.webhooks.generateTestHeaderString({
            payload,
            secret: opts.secret ?? secret,
            ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
          })
        : opts.header;
    return t.app.request("/api/webhooks/stripe", {
      method: "POST",
      headers: { "content-type": "application/json", ...(header === null ? {} : { "stripe-signature": header }) },
      body: payload,
    });
  };
  const sub = (id: string) => stripe.subscriptions.get(id) as Record<string, unknown> & { id: string };

  async function subscribe(c: Client & { id: string }) {
    const url = await urlOf(await checkout(c));
    const session = [...stripe.sessions.values()].find((s) => s.url === url)!;
    const subscription = stripe.completeSession(session.id as string) as { id: string };
    const r = await deliver(JSON.stringify(event("checkout.session.completed", stripe.sessions.get(session.id as string))));
    expect(r.status).toBe(200);
    return subscription.id;
  }

  it("creates one Checkout Session per user with the right parameters, even on a double click", async () => {
    const dee = await signedInUser(t, "dee@example.com");
    const before = stripe.requests.length;
    const [a, b] = await Promise.all([checkout(dee), checkout(dee)]);
    const url = await urlOf(a);
    expect(await urlOf(b)).toBe(url);
    expect(url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    const creates = stripe.requests.slice(before).filter((r) => r.method === "POST" && r.path === "/v1/checkout/sessions");
    expect(creates).toHaveLength(1);
    expect(creates[0]!.authorization).toBe("Bearer sk_test_switchboard");
    expect(creates[0]!.params).toMatchObject({
      mode: "subscription",
      success_url: "http://localhost:3000/subscription?checkout_success=true",
      cancel_url: "http://localhost:3000/subscription?checkout_canceled=true",
      client_reference_id: dee.id,
      customer_email: "dee@example.com",
      metadata: { userId: dee.id, plan: "pro" },
      subscription_data: { metadata: { userId: dee.id, plan: "pro" } },
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "2000", recurring: { interval: "month" } } }],
    });
    // The success URL alone grants nothing.
    await dee.get("/subscription?checkout_success=true");
    expect((await current(dee)).plan.id).toBe("free");
  });

  it("becomes Pro when Stripe's signed checkout.session.completed arrives; cancelling goes to Stripe", async () => {
    const fay = await signedInUser(t, "fay@example.com");
    const subId = await subscribe(fay);
    expect(stripe.requests.some((r) => r.method === "GET" && r.path === `/v1/subscriptions/${subId}`)).toBe(true);
    expect(await current(fay)).toMatchObject({ status: "active", plan: { id: "pro" }, cancelAtPeriodEnd: false });
    expect(await (await fay.get("/api/subscriptions/stripe-status")).json()).toMatchObject({
      success: true,
      subscription: { status: "active", productName: "Pro", interval: "month" },
      raw: { id: subId },
    });

    const r = await fay.post("/api/subscriptions/cancel");
    expect(r.status).toBe(200);
    const update = stripe.requests.findLast((x) => x.method === "POST" && x.path === `/v1/subscriptions/${subId}`)!;
    expect(update.params).toEqual({ cancel_at_period_end: "true" });
    expect(await current(fay)).toMatchObject({ plan: { id: "pro" }, cancelAtPeriodEnd: true });
  });

  it("refuses a missing, wrong, tampered or stale signature with 400 and changes nothing", async () => {
    const gil = await signedInUser(t, "gil@example.com");
    const url = await urlOf(await checkout(gil));
    const session = [...stripe.sessions.values()].find((s) => s.url === url)!;
    stripe.completeSession(session.id as string);
    const payload = JSON.stringify(event("checkout.session.completed", stripe.sessions.get(session.id as string)));
    expect((await deliver(payload, { header: null })).status).toBe(400);
    expect((await deliver(payload, { secret: "whsec_wrong" })).status).toBe(400);
    expect((await deliver(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(400);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret });
    expect((await deliver(payload.replace("checkout.session.completed", "checkout.session.expired"), { header })).status).toBe(400);
    expect((await current(gil)).plan.id).toBe("free");
    expect((await deliver(payload)).status).toBe(200);
    expect((await current(gil)).plan.id).toBe("pro");
  });

  it("applies an event once, even delivered again or five times at once", async () => {
    const hal = await signedInUser(t, "hal@example.com");
    const subId = await subscribe(hal);
    Object.assign(sub(subId), { cancel_at_period_end: true });
    const payload = JSON.stringify(event("customer.subscription.updated", sub(subId)));
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(payload)));
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as { duplicate: boolean }[];
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    expect(((await (await deliver(payload)).json()) as { duplicate: boolean }).duplicate).toBe(true);
    const id = (JSON.parse(payload) as { id: string }).id;
    expect((await t.db.database.pool.query("select count(*)::int as n from billing_events where id = $1", [id])).rows[0].n).toBe(1);
    expect(await current(hal)).toMatchObject({ plan: { id: "pro" }, cancelAtPeriodEnd: true });
  });

  it("never lets an older event win: 'updated: active' arriving after 'deleted' leaves the user Free", async () => {
    const ivy = await signedInUser(t, "ivy@example.com");
    const subId = await subscribe(ivy);
    const activeSnapshot = { ...sub(subId), status: "active" };
    Object.assign(sub(subId), { status: "canceled" }); // what Stripe itself now says
    const deleted = event("customer.subscription.deleted", sub(subId), -5);
    const olderUpdate = event("customer.subscription.updated", activeSnapshot, -60);
    expect((await deliver(JSON.stringify(deleted))).status).toBe(200);
    expect((await current(ivy)).plan.id).toBe("free");
    expect((await deliver(JSON.stringify(olderUpdate))).status).toBe(200);
    expect(await current(ivy)).toMatchObject({ status: "free", plan: { id: "free" } });
    // Even a newer 'updated' cannot bring a canceled subscription back.
    expect(await deliver(JSON.stringify(event("customer.subscription.updated", activeSnapshot)))).toHaveProperty("status", 200);
    expect((await current(ivy)).plan.id).toBe("free");

    // Between two updates, the newer one stands whatever the arrival order.
    const jo = await signedInUser(t, "jo@example.com");
    const joSub = await subscribe(jo);
    const older = event("customer.subscription.updated", { ...sub(joSub), cancel_at_period_end: false }, 10);
    Object.assign(sub(joSub), { cancel_at_period_end: true });
    const newer = event("customer.subscription.updated", sub(joSub), 20);
    await deliver(JSON.stringify(newer));
    await deliver(JSON.stringify(older));
    expect(await current(jo)).toMatchObject({ plan: { id: "pro" }, cancelAtPeriodEnd: true });
  });

  it("marks a failed payment past_due (still Pro while Stripe retries)", async () => {
    const kit = await signedInUser(t, "kit@example.com");
    const subId = await subscribe(kit);
    const invoice = { id: `in_${randomBytes(8).toString("hex")}`, object: "invoice", subscription: subId, customer: sub(subId).customer };
    Object.assign(sub(subId), { status: "past_due" });
    expect((await deliver(JSON.stringify(event("invoice.payment_failed", invoice, 1)))).status).toBe(200);
    expect(await current(kit)).toMatchObject({ status: "past_due", plan: { id: "pro" } });
    expect(await meaning(kit)).toEqual({ plan: "pro", standing: "attention", canCancel: true });
  });

  it("deleting the account cancels its Stripe subscription, so nobody pays for a gone account", async () => {
    const mo = await signedInUser(t, "mo@example.com");
    const subId = await subscribe(mo);
    const r = await mo.del(`/api/users/${mo.id}`, { confirmEmail: "mo@example.com" });
    expect(r.status).toBe(200);
    expect(stripe.requests.some((x) => x.method === "DELETE" && x.path === `/v1/subscriptions/${subId}`)).toBe(true);
    expect(sub(subId).status).toBe("canceled");
  });

  it("npm run billing:reconcile repairs what missed webhooks left wrong", async () => {
    const lu = await signedInUser(t, "lu@example.com");
    const subId = await subscribe(lu);
    // Stripe canceled it, and the webhook never came.
    Object.assign(sub(subId), { status: "canceled" });
    expect((await current(lu)).plan.id).toBe("pro");
    // Not spawnSync: the stand-in answers from this very process.
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = execFile(
        process.execPath,
        [path.join(projectRoot, "node_modules/tsx/dist/cli.mjs"), "src/server/cli/billing-reconcile.ts"],
        { cwd: projectRoot, env: { PATH: process.env.PATH, DATABASE_URL: t.db.url, ...env() }, timeout: 60_000 },
        (_e, stdout, stderr) => resolve({ status: p.exitCode, stdout, stderr }),
      );
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Checked \d+ subscriptions with Stripe: 1 repaired, 0 could not be read\./);
    expect((await current(lu)).plan.id).toBe("free");
  });
});

describe("Stripe unreachable", () => {
  it("a checkout says so clearly (503), it is not a bare server error", async () => {
    const t = await createTestApp({
      STRIPE_SECRET_KEY: "sk_test_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      STRIPE_API_BASE: `http://127.0.0.1:${await freePort()}`,
    });
    try {
      const nia = await signedInUser(t, "nia@example.com");
      const r = await checkout(nia);
      expect(r.status).toBe(503);
      expect(await r.json()).toMatchObject({ error: BILLING_TEXT.checkoutFailed });
    } finally {
      await t.close();
    }
  });
});
