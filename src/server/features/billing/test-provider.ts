import { randomBytes } from "node:crypto";
import { BILLING_TEXT, PLANS, planView } from "~/shared/billing.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { paysFor, planPage } from "../orgs/accounts.js";
import { effectivePlan } from "./plan.js";
import type { BillingProvider, CheckoutSession, ProviderSubscription } from "./provider.js";
import {
  endedTestSubscriptions,
  findCheckout,
  findSubscription,
  lockUser,
  saveSubscription,
  setCheckoutStatus,
  updateSubscription,
  type SubscriptionRow,
} from "./repo.js";

// The built-in test mode (no Stripe keys): a checkout page of the app, marked 'Test mode: no card
// is charged', stands in for the provider. Its confirmation is the provider's word: only then does
// the plan change. Periods last a month and renew unless cancelled (docs/billing.md).

const DAY = 24 * 60 * 60 * 1000;

const addMonth = (d: Date) => {
  const n = new Date(d);
  n.setUTCMonth(n.getUTCMonth() + 1);
  return n;
};

export class TestModeProvider implements BillingProvider {
  readonly id = "test" as const;

  constructor(private readonly d: { db: Db; config: Config }) {}

  async openCheckout(): Promise<CheckoutSession> {
    const id = `tcs_${randomBytes(16).toString("hex")}`;
    return { id, url: `${this.d.config.PUBLIC_URL}/subscription/test-checkout/${id}`, expiresAt: new Date(Date.now() + DAY) };
  }

  async status(row: SubscriptionRow): Promise<ProviderSubscription> {
    const status = effectivePlan(row).id === "pro" ? row.status : "canceled";
    const view = {
      status,
      productId: PLANS.pro.id,
      productName: PLANS.pro.name,
      interval: "month",
      currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    };
    return {
      plan: row.plan,
      status,
      interval: "month",
      currentPeriodEnd: row.currentPeriodEnd,
      cancelAtPeriodEnd: row.cancelAtPeriodEnd,
      raw: { provider: "test", id: row.subscriptionId, ...view },
    };
  }

  async cancelAtPeriodEnd(row: SubscriptionRow): Promise<void> {
    await updateSubscription(this.d.db, row.userId, { cancelAtPeriodEnd: true });
  }

  async endForDeletedAccount(): Promise<void> {
    // Nothing is billed in test mode; the row goes with the user.
  }

  // ---- the checkout page, /subscription/test-checkout/{id} ---------------------------------------

  /** The test checkout page's data: only its own user sees it. */
  async checkoutPage(viewer: Viewer, id: string) {
    const s = await this.ownCheckout(viewer, id);
    const status = s.status === "open" && s.expiresAt <= new Date() ? "expired" : s.status;
    return { id: s.id, status, plan: planView(PLANS.pro) };
  }

  /** 'Confirm payment': the provider confirms, and only now does the plan change. */
  async confirm(viewer: Viewer, id: string): Promise<string> {
    // The checkout's payer: the viewer, or an organisation they own (features/orgs/accounts.ts).
    const payer = (await this.ownCheckout(viewer, id)).userId;
    await this.d.db.transaction(async (tx) => {
      await lockUser(tx, payer);
      const s = await findCheckout(tx, id);
      if (!s || s.userId !== payer || s.provider !== "test") throw new AppError("not_found", BILLING_TEXT.checkoutNotFound);
      if (s.status !== "open" || s.expiresAt <= new Date()) throw new AppError("conflict", BILLING_TEXT.checkoutClosed);
      await setCheckoutStatus(tx, id, "complete");
      await saveSubscription(tx, {
        userId: payer,
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
    return `${await planPage(this.d.db, payer)}?checkout_success=true`;
  }

  /** 'Cancel' on the checkout page: back without a change. */
  async leave(viewer: Viewer, id: string): Promise<string> {
    const s = await this.ownCheckout(viewer, id);
    if (s.status === "open") await setCheckoutStatus(this.d.db, id, "canceled");
    return `${await planPage(this.d.db, s.userId)}?checkout_canceled=true`;
  }

  // ---- periods ---------------------------------------------------------------------------------

  /** The test clock: the user's current period ends now (the caller then runs the periodic check). */
  async endPeriodNow(userId: string): Promise<void> {
    const row = await findSubscription(this.d.db, userId);
    if (!row || row.provider !== "test") throw new AppError("validation_failed", BILLING_TEXT.notSubscribed);
    await updateSubscription(this.d.db, userId, { currentPeriodEnd: new Date(Date.now() - 1000) });
  }

  /** Ended periods: a cancelled subscription ends, an active one renews for a month. */
  async settleEndedPeriods(): Promise<void> {
    for (const row of await endedTestSubscriptions(this.d.db)) {
      if (row.cancelAtPeriodEnd) await updateSubscription(this.d.db, row.userId, { status: "canceled" });
      else if (row.status === "active")
        await updateSubscription(this.d.db, row.userId, { currentPeriodEnd: addMonth(row.currentPeriodEnd ?? new Date()) });
    }
  }

  private async ownCheckout(viewer: Viewer, id: string) {
    const s = await findCheckout(this.d.db, id);
    if (!s || s.provider !== "test" || !(await paysFor(this.d.db, viewer.id, s.userId)))
      throw new AppError("not_found", BILLING_TEXT.checkoutNotFound);
    return s;
  }
}
