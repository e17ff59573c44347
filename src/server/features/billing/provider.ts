import type { Viewer } from "../auth/viewer.js";
import type { SubscriptionState } from "./plan.js";
import type { SubscriptionRow } from "./repo.js";

// The seam between billing and whoever takes the money (docs/decisions/007-billing.md): the
// built-in test mode (test-provider.ts) and Stripe (stripe-provider.ts). The rest of billing - and
// the rest of the app - does not know which one is in use. A subscription row names the provider
// that made it, so a row is always handled by its own provider.

/** A checkout opened at the provider: the user is sent to `url`. */
export interface CheckoutSession {
  id: string;
  url: string;
  expiresAt: Date;
}

/** A subscription as its provider reports it now. */
export interface ProviderSubscription extends SubscriptionState {
  interval: string;
  /** the provider's own data, shown as-is by GET /api/subscriptions/stripe-status */
  raw: unknown;
}

export interface BillingProvider {
  readonly id: "test" | "stripe";
  /**
   * Opens a checkout for Pro. Never called inside a database transaction: a provider may wait on
   * the network. `customerId` is the provider's customer from an earlier subscription, if any.
   */
  /** `page`: where the payer's plan is shown, to come back to (an organisation's page for its plan) */
  openCheckout(viewer: Viewer, customerId: string | null, page?: string): Promise<CheckoutSession>;
  /** The provider's view of the subscription; undefined when it cannot be reached (the caller falls back to the row). */
  status(row: SubscriptionRow): Promise<ProviderSubscription | undefined>;
  /** Cancels at the end of the paid period and records it; Pro stays until then. */
  cancelAtPeriodEnd(row: SubscriptionRow): Promise<void>;
  /** The account is being deleted: nothing may be billed for it afterwards. */
  endForDeletedAccount(row: SubscriptionRow): Promise<void>;
}
