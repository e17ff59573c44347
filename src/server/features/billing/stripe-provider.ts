import type Stripe from "stripe";
import { BILLING_TEXT, PLANS } from "~/shared/billing.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import type { Viewer } from "../auth/viewer.js";
import type { BillingProvider, CheckoutSession, ProviderSubscription } from "./provider.js";
import type { SubscriptionRow } from "./repo.js";
import { applySubscription, INTERACTIVE, subscriptionFields, viaStripe } from "./stripe-state.js";

// Stripe (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET): Checkout Sessions in subscription mode;
// the plan then changes through Stripe's signed webhooks (webhooks.ts). See docs/billing.md.

const DAY = 24 * 60 * 60 * 1000;

export interface StripeProviderDeps {
  db: Db;
  config: Config;
  log: Logger;
  stripe: Stripe;
}

export class StripeProvider implements BillingProvider {
  readonly id = "stripe" as const;

  constructor(private readonly d: StripeProviderDeps) {}

  /** A Checkout Session; the idempotency key makes a second process asking in the same minute get the same one. */
  async openCheckout(viewer: Viewer, customerId: string | null, page = "/subscription"): Promise<CheckoutSession> {
    const { config } = this.d;
    const back = `${config.PUBLIC_URL}${page}`;
    const lineItem = config.STRIPE_PRICE_PRO
      ? { price: config.STRIPE_PRICE_PRO, quantity: 1 }
      : {
          price_data: {
            currency: "usd",
            unit_amount: PLANS.pro.price_monthly * 100,
            recurring: { interval: "month" as const },
            product_data: { name: `${config.SITE_NAME} ${PLANS.pro.name}` },
          },
          quantity: 1,
        };
    const session = await viaStripe(
      this.d.stripe.checkout.sessions.create(
        {
          mode: "subscription",
          line_items: [lineItem],
          success_url: `${back}?checkout_success=true`,
          cancel_url: `${back}?checkout_canceled=true`,
          client_reference_id: viewer.id,
          ...(customerId ? { customer: customerId } : { customer_email: viewer.email }),
          metadata: { userId: viewer.id, plan: "pro" },
          subscription_data: { metadata: { userId: viewer.id, plan: "pro" } },
        },
        { idempotencyKey: `checkout-${viewer.id}-${Math.floor(Date.now() / 60_000)}`, ...INTERACTIVE },
      ),
      BILLING_TEXT.checkoutFailed,
      this.d.log,
    );
    if (!session.url) throw new AppError("unavailable", BILLING_TEXT.checkoutFailed);
    const expiresAt = session.expires_at ? new Date(session.expires_at * 1000) : new Date(Date.now() + DAY);
    return { id: session.id, url: session.url, expiresAt };
  }

  async status(row: SubscriptionRow): Promise<ProviderSubscription | undefined> {
    if (!row.subscriptionId) return undefined;
    const sub = await this.d.stripe.subscriptions
      .retrieve(row.subscriptionId, {}, { timeout: 5000, maxNetworkRetries: 0 })
      .catch((e: unknown) => {
        this.d.log.warn({ err: e }, "Stripe status could not be read; the page falls back to the stored subscription");
        return undefined;
      });
    if (!sub) return undefined;
    const f = subscriptionFields(sub);
    return {
      plan: "pro",
      status: f.status,
      interval: f.interval,
      currentPeriodEnd: f.currentPeriodEnd,
      cancelAtPeriodEnd: f.cancelAtPeriodEnd,
      raw: sub,
    };
  }

  async cancelAtPeriodEnd(row: SubscriptionRow): Promise<void> {
    if (!row.subscriptionId) throw new AppError("validation_failed", BILLING_TEXT.notSubscribed);
    const sub = await viaStripe(
      this.d.stripe.subscriptions.update(row.subscriptionId, { cancel_at_period_end: true }, INTERACTIVE),
      BILLING_TEXT.cancelFailed,
      this.d.log,
    );
    await applySubscription(this.d, sub, { authoritative: true });
  }

  /** Canceled at Stripe at once (the row goes with the user). */
  async endForDeletedAccount(row: SubscriptionRow): Promise<void> {
    if (!row.subscriptionId || row.status === "canceled") return;
    const gone = (e: unknown) => (e as { code?: string }).code === "resource_missing";
    const cancel = this.d.stripe.subscriptions.cancel(row.subscriptionId, {}, INTERACTIVE).catch((e: unknown) => {
      if (!gone(e)) throw e; // already gone at Stripe: nothing left to pay for
    });
    await viaStripe(
      cancel,
      "Your subscription could not be canceled with Stripe, so the account was not deleted; try again in a moment",
      this.d.log,
    );
  }
}
