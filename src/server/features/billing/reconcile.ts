import type Stripe from "stripe";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { stripeSubscriptions } from "./repo.js";
import { applySubscription, subscriptionFields } from "./stripe-state.js";

// `npm run billing:reconcile` (docs/billing.md, Reconcile): every Stripe subscription is read again
// from Stripe and written back where the row differs (missed webhooks). It only repairs rows;
// stopping deployments stays with the app process that runs them.

export interface ReconcileDeps {
  db: Db;
  log: Logger;
  stripe: Stripe;
  /** the user's limits follow the repaired row (a no-op without hosting, as in the command) */
  enforce: (userId: string) => Promise<unknown>;
}

export async function reconcileStripe(d: ReconcileDeps): Promise<{ checked: number; changed: number; failed: number }> {
  let checked = 0;
  let changed = 0;
  let failed = 0;
  for (const row of await stripeSubscriptions(d.db)) {
    if (!row.subscriptionId) continue;
    checked++;
    try {
      const sub = await d.stripe.subscriptions.retrieve(row.subscriptionId);
      const f = subscriptionFields(sub);
      const differs =
        f.status !== row.status ||
        f.cancelAtPeriodEnd !== row.cancelAtPeriodEnd ||
        f.currentPeriodEnd?.getTime() !== row.currentPeriodEnd?.getTime();
      if (differs) {
        await applySubscription(d, sub, { authoritative: true, userHint: row.userId });
        await d.enforce(row.userId);
        changed++;
      }
    } catch (e) {
      failed++;
      d.log.error({ err: e, subscription: row.subscriptionId }, "could not reconcile a subscription");
    }
  }
  return { checked, changed, failed };
}
