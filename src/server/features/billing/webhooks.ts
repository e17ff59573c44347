import type Stripe from "stripe";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { claimEvent, findSubscriptionById, lockUser, setCheckoutStatus, updateSubscription, type Tx } from "./repo.js";
import { applySubscription, viaStripe } from "./stripe-state.js";

// Stripe's webhooks (docs/billing.md, Webhooks): checkout.session.completed,
// customer.subscription.created|updated|deleted and invoice.payment_failed.

export interface WebhookDeps {
  db: Db;
  log: Logger;
  stripe: Stripe;
  /** STRIPE_WEBHOOK_SECRET */
  secret: string;
}

/**
 * One delivery: the signature is checked on the raw body (300 s tolerance); each event is applied
 * once, in one transaction with its id; an event older than what was applied is ignored, and a
 * canceled subscription never comes back to life. Returns whether it was applied (false: a
 * duplicate) and whose subscription changed, so that their limits can follow.
 */
export async function receiveStripeEvent(
  d: WebhookDeps,
  rawBody: string,
  signature: string | undefined,
): Promise<{ applied: boolean; userId?: string }> {
  let event: Stripe.Event;
  try {
    event = d.stripe.webhooks.constructEvent(rawBody, signature ?? "", d.secret, 300);
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
    if (subId)
      sub = await viaStripe(d.stripe.subscriptions.retrieve(subId), "Could not read the subscription from Stripe; try again later", d.log);
  } else if (event.type.startsWith("customer.subscription.")) {
    sub = event.data.object as Stripe.Subscription;
  }
  let userId: string | undefined;
  const applied = await d.db.transaction(async (tx) => {
    if (!(await claimEvent(tx, event.id, event.type))) return false;
    if (event.type === "checkout.session.completed") {
      await setCheckoutStatus(tx, event.data.object.id, "complete");
    }
    if (sub) {
      userId = await applySubscription(d, sub, { tx, eventAt: created, userHint, deleted: event.type === "customer.subscription.deleted" });
    } else if (event.type === "invoice.payment_failed") {
      userId = await paymentFailed(tx, event.data.object, created);
    }
    return true;
  });
  return { applied, userId };
}

/** A failed payment: past_due (still Pro while Stripe retries), unless newer news already arrived. */
async function paymentFailed(tx: Tx, object: Stripe.Invoice, created: Date): Promise<string | undefined> {
  const invoice = object as Stripe.Invoice & { subscription?: string | { id: string } | null };
  const subId =
    typeof invoice.subscription === "string"
      ? invoice.subscription
      : (invoice.subscription?.id ?? invoice.parent?.subscription_details?.subscription);
  const row = typeof subId === "string" ? await findSubscriptionById(tx, subId) : undefined;
  if (!row || row.status !== "active" || (row.lastEventAt && created < row.lastEventAt)) return undefined;
  await lockUser(tx, row.userId);
  await updateSubscription(tx, row.userId, { status: "past_due", lastEventAt: created });
  return row.userId;
}
