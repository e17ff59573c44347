import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { BILLING_TEXT, planView, type ProviderStatusView, type SubscriptionView } from "../../../shared/billing.js";
import { PLANS } from "../../../shared/deployments.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import type { Viewer } from "../auth/viewer.js";
import { listLiveDeployments, updateDeployment, usersWithLiveDeployments } from "../deployments/repo.js";
import type { Supervisor } from "../runtime/supervisor.js";
import { effectivePlan, PAID_STATUSES, planOf } from "./plan.js";
import {
  claimEvent,
  endedTestSubscriptions,
  findCheckout,
  findSubscription,
  findSubscriptionById,
  insertCheckout,
  lockUser,
  openCheckout,
  saveSubscription,
  setCheckoutStatus,
  stripeSubscriptions,
  updateSubscription,
  userExists,
  userIdForCustomer,
  type SubscriptionRow,
  type Tx,
} from "./repo.js";

// Billing: Free and Pro. Without Stripe keys a built-in test-mode checkout stands in for the
// provider (decisions.md); with them, Stripe Checkout and webhooks. The plan changes only when the
// provider confirms: the test page's confirmation or a verified Stripe event.

export interface BillingDeps {
  db: Db;
  config: Config;
  log: Logger;
  /** absent in the reconcile command: the app's own sweep then stops what is over the limit */
  supervisor?: Supervisor;
}

const DAY = 24 * 60 * 60 * 1000;
/** Calls a person waits for: fail fast rather than hold the page. */
const INTERACTIVE = { timeout: 8000, maxNetworkRetries: 1 };
const dateText = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : "");
const addMonth = (d: Date) => {
  const n = new Date(d);
  n.setUTCMonth(n.getUTCMonth() + 1);
  return n;
};

/** A failed call to Stripe (unreachable, refused) becomes a clear 503, not a bare 500. */
async function viaStripe<T>(call: Promise<T>, message: string, log: Logger): Promise<T> {
  try {
    return await call;
  } catch (e) {
    log.error({ err: e }, "Stripe call failed");
    throw new AppError("unavailable", message);
  }
}

function signedIn(viewer: Viewer | null): Viewer {
  if (!viewer) throw new AppError("unauthorized", "Authentication required");
  return viewer;
}

/** Stripe's client, pointed at STRIPE_API_BASE when set (tests use a local stand-in). */
export function stripeClient(config: Config): Stripe | undefined {
  if (!config.STRIPE_SECRET_KEY) return undefined;
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
  return new Stripe(config.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(base ? { host: base.hostname, port: Number(base.port || (base.protocol === "https:" ? 443 : 80)), protocol: base.protocol.replace(":", "") as "http" | "https" } : {}),
  });
}

/** The fields of a Stripe subscription the app keeps (the period end moved onto items in newer API versions). */
function subscriptionFields(sub: Stripe.Subscription) {
  const s = sub as Stripe.Subscription & { current_period_end?: number };
  const periodEnd = s.current_period_end ?? s.items?.data?.[0]?.current_period_end;
  return {
    status: s.status,
    customerId: typeof s.customer === "string" ? s.customer : (s.customer?.id ?? null),
    currentPeriodEnd: periodEnd ? new Date(periodEnd * 1000) : null,
    cancelAtPeriodEnd: Boolean(s.cancel_at_period_end),
    interval: s.items?.data?.[0]?.price?.recurring?.interval ?? "month",
  };
}

export class Billing {
  readonly stripe: Stripe | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(private readonly d: BillingDeps) {
    this.stripe = stripeClient(d.config);
  }

  /** The periodic check (ended test-mode periods, plan limits); the app process starts it. */
  start(): void {
    this.sweeper ??= setInterval(() => void this.sweep(), this.d.config.BILLING_SWEEP_MS).unref();
  }

  get webhooksEnabled(): boolean {
    return Boolean(this.stripe && this.d.config.STRIPE_WEBHOOK_SECRET);
  }

  get mode(): "stripe" | "test" {
    return this.stripe ? "stripe" : "test";
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  // ---- reading ---------------------------------------------------------------------------------

  async current(viewer: Viewer | null): Promise<SubscriptionView> {
    const row = await findSubscription(this.d.db, signedIn(viewer).id);
    const plan = effectivePlan(row);
    if (plan.id === "free" || !row) return { status: "free", plan: planView(PLANS.free), period: null, currentPeriodEnd: null, cancelAtPeriodEnd: false };
    return { status: row.status, plan: planView(plan), period: "month", currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null, cancelAtPeriodEnd: row.cancelAtPeriodEnd };
  }

  /** The provider's own view of the subscription (Stripe's, or the built-in test provider's). */
  async providerStatus(viewer: Viewer | null): Promise<{ success: boolean; subscription: ProviderStatusView | null; raw: unknown; message?: string }> {
    const row = await findSubscription(this.d.db, signedIn(viewer).id);
    const none = { success: false, subscription: null, raw: null, message: "No paid subscription" };
    if (!row?.subscriptionId) return none;
    if (row.provider === "stripe") {
      if (!this.stripe) return none;
      const sub = await this.stripe.subscriptions.retrieve(row.subscriptionId, {}, { timeout: 5000, maxNetworkRetries: 0 }).catch((e: unknown) => {
        this.d.log.warn({ err: e }, "Stripe status could not be read; the page falls back to the stored subscription");
        return undefined;
      });
      if (!sub) return { ...none, message: "The payment provider could not be reached" };
      const f = subscriptionFields(sub);
      return {
        success: true,
        subscription: { status: f.status, productId: PLANS.pro.id, productName: PLANS.pro.name, interval: f.interval, currentPeriodEnd: f.currentPeriodEnd?.toISOString() ?? null, cancelAtPeriodEnd: f.cancelAtPeriodEnd },
        raw: sub,
      };
    }
    const status = effectivePlan(row).id === "pro" ? row.status : "canceled";
    const view = { status, productId: PLANS.pro.id, productName: PLANS.pro.name, interval: "month", currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null, cancelAtPeriodEnd: row.cancelAtPeriodEnd };
    return { success: true, subscription: view, raw: { provider: "test", id: row.subscriptionId, ...view } };
  }

  // ---- checkout --------------------------------------------------------------------------------

  /**
   * A checkout URL for Pro: one open session per user, so a double click gets the same one. Calls
   * to Stripe run outside any database transaction (no pool connection waits on the network),
   * one at a time per user in this process; the idempotency key covers other processes.
   */
  async checkout(viewer: Viewer | null, plan: string): Promise<string> {
    const v = signedIn(viewer);
    if (plan !== "pro") throw new AppError("validation_failed", BILLING_TEXT.unknownPlan);
    return this.oneAtATime(v.id, async () => {
      const existing = await this.d.db.transaction(async (tx) => {
        await lockUser(tx, v.id);
        const row = await findSubscription(tx, v.id);
        if (effectivePlan(row).id === "pro") throw new AppError("conflict", BILLING_TEXT.alreadySubscribed);
        const open = await openCheckout(tx, v.id);
        if (open && open.provider === this.mode) return { url: open.url, row };
        if (!this.stripe) {
          const id = `tcs_${randomBytes(16).toString("hex")}`;
          const url = `${this.d.config.PUBLIC_URL}/subscription/test-checkout/${id}`;
          await insertCheckout(tx, { id, userId: v.id, provider: "test", plan: "pro", url, expiresAt: new Date(Date.now() + DAY) });
          return { url, row };
        }
        return { url: undefined, row };
      });
      if (existing.url || !this.stripe) return existing.url!;
      const back = `${this.d.config.PUBLIC_URL}/subscription`;
      const lineItem = this.d.config.STRIPE_PRICE_PRO
        ? { price: this.d.config.STRIPE_PRICE_PRO, quantity: 1 }
        : { price_data: { currency: "usd", unit_amount: PLANS.pro.price_monthly * 100, recurring: { interval: "month" as const }, product_data: { name: `${this.d.config.SITE_NAME} ${PLANS.pro.name}` } }, quantity: 1 };
      const session = await viaStripe(
        this.stripe.checkout.sessions.create(
          {
            mode: "subscription",
            line_items: [lineItem],
            success_url: `${back}?checkout_success=true`,
            cancel_url: `${back}?checkout_canceled=true`,
            client_reference_id: v.id,
            ...(existing.row?.customerId ? { customer: existing.row.customerId } : { customer_email: v.email }),
            metadata: { userId: v.id, plan: "pro" },
            subscription_data: { metadata: { userId: v.id, plan: "pro" } },
          },
          { idempotencyKey: `checkout-${v.id}-${Math.floor(Date.now() / 60_000)}`, ...INTERACTIVE },
        ),
        BILLING_TEXT.checkoutFailed,
        this.d.log,
      );
      if (!session.url) throw new AppError("unavailable", BILLING_TEXT.checkoutFailed);
      const expiresAt = session.expires_at ? new Date(session.expires_at * 1000) : new Date(Date.now() + DAY);
      await insertCheckout(this.d.db, { id: session.id, userId: v.id, provider: "stripe", plan: "pro", url: session.url, expiresAt });
      return session.url;
    });
  }

  private readonly queues = new Map<string, Promise<unknown>>();

  /** Runs `fn` after any earlier call for the same user has finished. */
  private oneAtATime<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(userId) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(userId, tail);
    void tail.then(() => this.queues.get(userId) === tail && this.queues.delete(userId));
    return run;
  }

  /** The built-in test-mode checkout page's data. */
  async testCheckout(viewer: Viewer | null, id: string) {
    const v = signedIn(viewer);
    const s = await findCheckout(this.d.db, id);
    if (!s || s.userId !== v.id || s.provider !== "test") throw new AppError("not_found", BILLING_TEXT.checkoutNotFound);
    const status = s.status === "open" && s.expiresAt <= new Date() ? "expired" : s.status;
    return { id: s.id, status, plan: planView(PLANS.pro) };
  }

  /** The test provider confirms the payment: only now does the plan change. */
  async confirmTestCheckout(viewer: Viewer | null, id: string): Promise<string> {
    const v = signedIn(viewer);
    await this.d.db.transaction(async (tx) => {
      await lockUser(tx, v.id);
      const s = await findCheckout(tx, id);
      if (!s || s.userId !== v.id || s.provider !== "test") throw new AppError("not_found", BILLING_TEXT.checkoutNotFound);
      if (s.status !== "open" || s.expiresAt <= new Date()) throw new AppError("conflict", BILLING_TEXT.checkoutClosed);
      await setCheckoutStatus(tx, id, "complete");
      await saveSubscription(tx, {
        userId: v.id,
        provider: "test",
        plan: "pro",
        status: "active",
        customerId: null,
        subscriptionId: `tsub_${randomBytes(12).toString("hex")}`,
        currentPeriodEnd: addMonth(new Date()),
        cancelAtPeriodEnd: false,
        lastEventAt: new Date(),
      });
    });
    return "/subscription?checkout_success=true";
  }

  async cancelTestCheckout(viewer: Viewer | null, id: string): Promise<string> {
    const v = signedIn(viewer);
    const s = await findCheckout(this.d.db, id);
    if (!s || s.userId !== v.id || s.provider !== "test") throw new AppError("not_found", BILLING_TEXT.checkoutNotFound);
    if (s.status === "open") await setCheckoutStatus(this.d.db, id, "canceled");
    return "/subscription?checkout_canceled=true";
  }

  // ---- cancelling ------------------------------------------------------------------------------

  /** Cancels at the end of the paid period: Pro stays until then. */
  async cancel(viewer: Viewer | null): Promise<string> {
    const v = signedIn(viewer);
    const row = await findSubscription(this.d.db, v.id);
    if (!row?.subscriptionId || effectivePlan(row).id !== "pro") throw new AppError("validation_failed", BILLING_TEXT.notSubscribed);
    if (row.provider === "stripe") {
      if (!this.stripe) throw new AppError("unavailable", BILLING_TEXT.cancelFailed);
      const sub = await viaStripe(this.stripe.subscriptions.update(row.subscriptionId, { cancel_at_period_end: true }, INTERACTIVE), BILLING_TEXT.cancelFailed, this.d.log);
      await this.applySubscription(sub, { authoritative: true });
    } else {
      await updateSubscription(this.d.db, v.id, { cancelAtPeriodEnd: true });
    }
    const after = await findSubscription(this.d.db, v.id);
    return BILLING_TEXT.cancelMessage(dateText(after?.currentPeriodEnd ?? null));
  }

  /** A deleted account stops paying: its Stripe subscription is canceled at once (the row goes with the user). */
  async endForDeletedAccount(userId: string): Promise<void> {
    const row = await findSubscription(this.d.db, userId);
    if (row?.provider !== "stripe" || !row.subscriptionId || row.status === "canceled" || !this.stripe) return;
    const gone = (e: unknown) => (e as { code?: string }).code === "resource_missing";
    const cancel = this.stripe.subscriptions.cancel(row.subscriptionId, {}, INTERACTIVE).catch((e: unknown) => {
      if (!gone(e)) throw e; // already gone at Stripe: nothing left to pay for
    });
    await viaStripe(cancel, "Your subscription could not be canceled with Stripe, so the account was not deleted; try again in a moment", this.d.log);
  }

  /** Test clock (test mode, never production): the current period ends now. */
  async endPeriodNow(viewer: Viewer | null): Promise<void> {
    const v = signedIn(viewer);
    if (this.d.config.NODE_ENV === "production" || this.stripe) throw new AppError("not_found", "Not found");
    const row = await findSubscription(this.d.db, v.id);
    if (!row || row.provider !== "test") throw new AppError("validation_failed", BILLING_TEXT.notSubscribed);
    await updateSubscription(this.d.db, v.id, { currentPeriodEnd: new Date(Date.now() - 1000) });
    await this.sweep();
  }

  // ---- provider events -------------------------------------------------------------------------

  /**
   * A Stripe webhook: the signature is checked on the raw body (300 s tolerance); each event is
   * applied once, in one transaction with its id; an event older than what was applied is ignored,
   * and a canceled subscription never comes back to life.
   */
  async webhook(rawBody: string, signature: string | undefined): Promise<{ applied: boolean }> {
    const secret = this.d.config.STRIPE_WEBHOOK_SECRET;
    if (!this.stripe || !secret) throw new AppError("not_found", "Stripe webhooks are not configured");
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature ?? "", secret, 300);
    } catch (e) {
      throw new AppError("validation_failed", `Webhook signature verification failed: ${(e as Error).message}`);
    }
    const created = new Date(event.created * 1000);
    let sub: Stripe.Subscription | undefined;
    let userHint: string | undefined;
    if (event.type === "checkout.session.completed") {
      const session = event.data.object;
      userHint = session.client_reference_id ?? session.metadata?.userId ?? undefined;
      const subId = typeof session.subscription === "string" ? session.subscription : session.subscription?.id;
      // The session names the subscription; its state comes from the provider itself.
      // Unreachable: a 503, and Stripe delivers the event again later.
      if (subId) sub = await viaStripe(this.stripe.subscriptions.retrieve(subId), "Could not read the subscription from Stripe; try again later", this.d.log);
    } else if (event.type.startsWith("customer.subscription.")) {
      sub = event.data.object as Stripe.Subscription;
    }
    let userId: string | undefined;
    const applied = await this.d.db.transaction(async (tx) => {
      if (!(await claimEvent(tx, event.id, event.type))) return false;
      if (event.type === "checkout.session.completed") {
        await setCheckoutStatus(tx, event.data.object.id, "complete");
      }
      if (sub) {
        userId = await this.applySubscription(sub, { tx, eventAt: created, userHint, deleted: event.type === "customer.subscription.deleted" });
      } else if (event.type === "invoice.payment_failed") {
        const invoice = event.data.object as Stripe.Invoice & { subscription?: string | { id: string } | null };
        const subId = typeof invoice.subscription === "string" ? invoice.subscription : (invoice.subscription?.id ?? invoice.parent?.subscription_details?.subscription);
        const row = typeof subId === "string" ? await findSubscriptionById(tx, subId) : undefined;
        if (row && row.status === "active" && (!row.lastEventAt || created >= row.lastEventAt)) {
          await lockUser(tx, row.userId);
          await updateSubscription(tx, row.userId, { status: "past_due", lastEventAt: created });
          userId = row.userId;
        }
      }
      return true;
    });
    if (userId) await this.enforce(userId);
    return { applied };
  }

  /**
   * Writes a Stripe subscription's state for its user. `authoritative` (just read from Stripe)
   * always wins; an event applies only if it is not older than the last one applied, and never
   * revives a subscription that was canceled.
   */
  async applySubscription(sub: Stripe.Subscription, o: { tx?: Tx; eventAt?: Date; userHint?: string; deleted?: boolean; authoritative?: boolean }): Promise<string | undefined> {
    const run = async (tx: Tx) => {
      const f = subscriptionFields(sub);
      let userId = sub.metadata?.userId || o.userHint;
      if (!userId && f.customerId) userId = await userIdForCustomer(tx, f.customerId);
      if (!userId || !(await userExists(tx, userId))) {
        this.d.log.warn({ subscription: sub.id }, "a Stripe subscription for no known user was ignored");
        return undefined;
      }
      await lockUser(tx, userId);
      const existing = await findSubscription(tx, userId);
      const status = o.deleted ? "canceled" : f.status;
      if (existing && !o.authoritative) {
        if (existing.subscriptionId === sub.id) {
          if (existing.status === "canceled" && status !== "canceled") return userId; // canceled is final
          // Older news loses - except the end of a subscription, which nothing can undo.
          if (!o.deleted && o.eventAt && existing.lastEventAt && o.eventAt < existing.lastEventAt) return userId;
        } else if (existing.subscriptionId && PAID_STATUSES.has(existing.status) && !PAID_STATUSES.has(status)) {
          return userId; // another, older subscription's end does not end the current one
        }
      }
      const eventAt = o.eventAt ?? new Date();
      const lastEventAt = existing?.lastEventAt && existing.lastEventAt > eventAt ? existing.lastEventAt : eventAt;
      await saveSubscription(tx, { userId, provider: "stripe", plan: "pro", status, customerId: f.customerId, subscriptionId: sub.id, currentPeriodEnd: f.currentPeriodEnd, cancelAtPeriodEnd: f.cancelAtPeriodEnd, lastEventAt });
      return userId;
    };
    return o.tx ? run(o.tx) : this.d.db.transaction(run);
  }

  /** `npm run billing:reconcile`: every Stripe subscription read again from Stripe and written back. */
  async reconcile(): Promise<{ checked: number; changed: number; failed: number }> {
    if (!this.stripe) throw new Error("STRIPE_SECRET_KEY is not set: there is nothing to reconcile in test mode");
    let checked = 0;
    let changed = 0;
    let failed = 0;
    for (const row of await stripeSubscriptions(this.d.db)) {
      if (!row.subscriptionId) continue;
      checked++;
      try {
        const sub = await this.stripe.subscriptions.retrieve(row.subscriptionId);
        const f = subscriptionFields(sub);
        const differs = f.status !== row.status || f.cancelAtPeriodEnd !== row.cancelAtPeriodEnd || f.currentPeriodEnd?.getTime() !== row.currentPeriodEnd?.getTime();
        if (differs) {
          await this.applySubscription(sub, { authoritative: true, userHint: row.userId });
          await this.enforce(row.userId);
          changed++;
        }
      } catch (e) {
        failed++;
        this.d.log.error({ err: e, subscription: row.subscriptionId }, "could not reconcile a subscription");
      }
    }
    return { checked, changed, failed };
  }

  // ---- plan limits -----------------------------------------------------------------------------

  /** Deployments beyond what the plan runs are stopped (the newest first), never deleted; the owner sees why. */
  async enforce(userId: string): Promise<number> {
    if (!this.d.supervisor) return 0;
    const plan = await planOf(this.d.db, userId);
    const live = await listLiveDeployments(this.d.db, userId);
    const extra = live.slice(0, Math.max(0, live.length - plan.maxRunning));
    for (const dep of extra) {
      await this.d.supervisor!.stop(dep.id, { keepRow: true });
      await updateDeployment(this.d.db, dep.id, { status: "stopped", statusDetail: BILLING_TEXT.stoppedByPlan(plan.name, plan.maxRunning), pid: null, pidStart: null });
      this.d.log.info({ deployment: dep.id, plan: plan.id }, "deployment stopped: over the plan's limit");
    }
    return extra.length;
  }

  /** Periodically: ended test-mode periods (cancelled ones end, others renew), then every user's limits. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const row of await endedTestSubscriptions(this.d.db)) {
        if (row.cancelAtPeriodEnd) await updateSubscription(this.d.db, row.userId, { status: "canceled" });
        else if (row.status === "active") await updateSubscription(this.d.db, row.userId, { currentPeriodEnd: addMonth(row.currentPeriodEnd ?? new Date()) });
      }
      for (const userId of await usersWithLiveDeployments(this.d.db, PLANS.free.maxRunning + 1)) await this.enforce(userId);
    } catch (e) {
      this.d.log.error({ err: e }, "billing sweep failed");
    } finally {
      this.sweeping = false;
    }
  }
}

export type { SubscriptionRow };
