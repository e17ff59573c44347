import type Stripe from "stripe";
import { BILLING_TEXT, PLANS, type CurrentSubscription, type ProviderStatusView } from "~/shared/billing.js";
import { formatDate } from "~/shared/format.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import type { Viewer } from "../auth/viewer.js";
import { payingAs, planPage } from "../orgs/accounts.js";
import { PlanLimits, type HostingLimits } from "./limits.js";
import { currentView, effectivePlan } from "./plan.js";
import type { BillingProvider } from "./provider.js";
import { reconcileStripe } from "./reconcile.js";
import { findSubscription, insertCheckout, lockUser, openCheckout, type SubscriptionRow, type Tx } from "./repo.js";
import { StripeProvider } from "./stripe-provider.js";
import { stripeClient } from "./stripe-state.js";
import { TestModeProvider } from "./test-provider.js";
import { receiveStripeEvent } from "./webhooks.js";

// Billing: Free and Pro (docs/billing.md, docs/decisions/007-billing.md). Without Stripe keys the
// built-in test mode stands in for the provider; with them, Stripe Checkout and webhooks. The plan
// changes only when the provider confirms. This class routes each request to the provider of the
// subscription at hand; the routes have already checked who is asking.

export interface BillingDeps {
  db: Db;
  config: Config;
  log: Logger;
  /** absent in the reconcile command: the app's own periodic check then stops what is over the limit */
  hosting?: HostingLimits;
}

const dateText = (d: Date | null) => (d ? formatDate(d) : "");

export class Billing {
  readonly stripe: Stripe | undefined;
  private readonly testMode: TestModeProvider;
  private readonly stripeProvider: StripeProvider | undefined;
  private readonly limits: PlanLimits;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly d: BillingDeps) {
    this.stripe = stripeClient(d.config);
    this.testMode = new TestModeProvider(d);
    this.stripeProvider = this.stripe && new StripeProvider({ ...d, stripe: this.stripe });
    this.limits = new PlanLimits({
      db: d.db,
      log: d.log,
      hosting: d.hosting,
      settleEndedPeriods: () => this.testMode.settleEndedPeriods(),
      sweepMs: d.config.BILLING_SWEEP_MS,
      idleMs: d.config.DEPLOY_IDLE_MS,
    });
  }

  /** The periodic check (ended test-mode periods, plan limits); the app process starts it. */
  start(): void {
    this.limits.start();
  }

  close(): void {
    this.limits.close();
  }

  get webhooksEnabled(): boolean {
    return Boolean(this.stripe && this.d.config.STRIPE_WEBHOOK_SECRET);
  }

  /** Where new checkouts go. */
  private get provider(): BillingProvider {
    return this.stripeProvider ?? this.testMode;
  }

  get mode(): BillingProvider["id"] {
    return this.provider.id;
  }

  /** The provider that made this subscription; none for a Stripe one while Stripe is not configured. */
  private providerOf(row: SubscriptionRow): BillingProvider | undefined {
    return row.provider === "stripe" ? this.stripeProvider : this.testMode;
  }

  // ---- reading ---------------------------------------------------------------------------------

  /**
   * Who a billing request is for: the viewer, or (`org`, a slug) an organisation they own, whose
   * account then pays (features/orgs/accounts.ts). The viewer's e-mail stays the one receipts go to.
   */
  payer(viewer: Viewer, org: string | undefined): Promise<Viewer> {
    return payingAs(this.d.db, viewer, org);
  }

  /**
   * The subscription and the plan in force. The provider's word comes first: when it says paid
   * (say, a payment Stripe confirmed whose webhook is still on its way) that is shown; otherwise,
   * or when it cannot be reached, the stored subscription.
   */
  async current(viewer: Viewer): Promise<CurrentSubscription> {
    const row = await findSubscription(this.d.db, viewer.id);
    const live = row?.subscriptionId ? await this.providerOf(row)?.status(row) : undefined;
    return { success: true, ...currentView(live && effectivePlan(live).id === "pro" ? live : row) };
  }

  /** The provider's own view of the subscription (Stripe's, or the built-in test provider's). */
  async providerStatus(
    viewer: Viewer,
  ): Promise<{ success: boolean; subscription: ProviderStatusView | null; raw: unknown; message?: string }> {
    const row = await findSubscription(this.d.db, viewer.id);
    const none = { success: false, subscription: null, raw: null, message: "No paid subscription" };
    const provider = row?.subscriptionId ? this.providerOf(row) : undefined;
    if (!row || !provider) return none;
    const s = await provider.status(row);
    if (!s) return { ...none, message: "The payment provider could not be reached" };
    const subscription = {
      status: s.status,
      productId: PLANS.pro.id,
      productName: PLANS.pro.name,
      interval: s.interval,
      currentPeriodEnd: s.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    };
    return { success: true, subscription, raw: s.raw };
  }

  // ---- checkout --------------------------------------------------------------------------------

  /**
   * A checkout URL for Pro: one open checkout per user, so a double click gets the same one. The
   * provider is asked outside any database transaction (no pool connection waits on the network),
   * one call at a time per user in this process; the row is then written under the user's lock,
   * unless another process opened one meanwhile.
   */
  async checkout(viewer: Viewer, plan: string): Promise<string> {
    if (plan !== "pro") throw new AppError("validation_failed", BILLING_TEXT.unknownPlan);
    const provider = this.provider;
    return this.oneAtATime(viewer.id, async () => {
      const before = await this.d.db.transaction((tx) => this.openCheckoutOf(tx, viewer.id, provider));
      if (before.url) return before.url;
      const session = await provider.openCheckout(viewer, before.row?.customerId ?? null, await planPage(this.d.db, viewer.id));
      return this.d.db.transaction(async (tx) => {
        const now = await this.openCheckoutOf(tx, viewer.id, provider);
        if (now.url) return now.url;
        await insertCheckout(tx, {
          id: session.id,
          userId: viewer.id,
          provider: provider.id,
          plan: "pro",
          url: session.url,
          expiresAt: session.expiresAt,
        });
        return session.url;
      });
    });
  }

  /** Under the user's lock: refuses a user already on Pro; the checkout still open with this provider, if any. */
  private async openCheckoutOf(tx: Tx, userId: string, provider: BillingProvider): Promise<{ url?: string; row?: SubscriptionRow }> {
    await lockUser(tx, userId);
    const row = await findSubscription(tx, userId);
    if (effectivePlan(row).id === "pro") throw new AppError("conflict", BILLING_TEXT.alreadySubscribed);
    const open = await openCheckout(tx, userId);
    return { url: open && open.provider === provider.id ? open.url : undefined, row };
  }

  /** Runs `fn` after any earlier call for the same user has finished. */
  private oneAtATime<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(userId) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(userId, tail);
    void tail.then(() => this.queues.get(userId) === tail && this.queues.delete(userId));
    return run;
  }

  // ---- the built-in test mode's checkout page and clock ----------------------------------------

  testCheckout(viewer: Viewer, id: string) {
    return this.testMode.checkoutPage(viewer, id);
  }

  confirmTestCheckout(viewer: Viewer, id: string): Promise<string> {
    return this.testMode.confirm(viewer, id);
  }

  cancelTestCheckout(viewer: Viewer, id: string): Promise<string> {
    return this.testMode.leave(viewer, id);
  }

  /** Test clock (test mode, never production): the current period ends now. */
  async endPeriodNow(viewer: Viewer): Promise<void> {
    if (this.d.config.NODE_ENV === "production" || this.stripe) throw new AppError("not_found", "Not found");
    await this.testMode.endPeriodNow(viewer.id);
    await this.limits.sweep();
  }

  // ---- cancelling ------------------------------------------------------------------------------

  /** Cancels at the end of the paid period: Pro stays until then. */
  async cancel(viewer: Viewer): Promise<string> {
    const row = await findSubscription(this.d.db, viewer.id);
    if (!row?.subscriptionId || effectivePlan(row).id !== "pro") throw new AppError("validation_failed", BILLING_TEXT.notSubscribed);
    const provider = this.providerOf(row);
    if (!provider) throw new AppError("unavailable", BILLING_TEXT.cancelFailed);
    await provider.cancelAtPeriodEnd(row);
    const after = await findSubscription(this.d.db, viewer.id);
    return BILLING_TEXT.cancelMessage(dateText(after?.currentPeriodEnd ?? null));
  }

  /** A deleted account stops paying: its provider ends the subscription at once (the row goes with the user). */
  async endForDeletedAccount(userId: string): Promise<void> {
    const row = await findSubscription(this.d.db, userId);
    if (row) await this.providerOf(row)?.endForDeletedAccount(row);
  }

  // ---- Stripe's word ---------------------------------------------------------------------------

  /** A Stripe webhook delivery (webhooks.ts); the user's limits follow at once. */
  async webhook(rawBody: string, signature: string | undefined): Promise<{ applied: boolean }> {
    const secret = this.d.config.STRIPE_WEBHOOK_SECRET;
    if (!this.stripe || !secret) throw new AppError("not_found", "Stripe webhooks are not configured");
    const { applied, userId } = await receiveStripeEvent(
      { db: this.d.db, log: this.d.log, stripe: this.stripe, secret },
      rawBody,
      signature,
    );
    if (userId) await this.limits.enforce(userId);
    return { applied };
  }

  /** `npm run billing:reconcile` (reconcile.ts). */
  async reconcile(): Promise<{ checked: number; changed: number; failed: number }> {
    if (!this.stripe) throw new Error("STRIPE_SECRET_KEY is not set: there is nothing to reconcile in test mode");
    return reconcileStripe({ db: this.d.db, log: this.d.log, stripe: this.stripe, enforce: (userId) => this.limits.enforce(userId) });
  }

  // ---- plan limits (limits.ts) -----------------------------------------------------------------

  /** The user's deployments beyond what the plan runs are stopped; returns how many. */
  enforce(userId: string): Promise<number> {
    return this.limits.enforce(userId);
  }

  /** Ended test-mode periods, then every user's limits. */
  sweep(): Promise<void> {
    return this.limits.sweep();
  }
}
