// Subscriptions in the stand-in: made by completing a Checkout Session, then updated or cancelled
// through the API as Stripe would.
import { DAY, PERIOD_SECONDS, StripeHttpError, mergeMetadata, now, num, obj, randomId, str, type Obj } from "./form.js";
import { createCustomer, lineItems, priceFor, type StandInStore } from "./store.js";

/** See StripeStandIn.completeSession. */
export function completeSession(store: StandInStore, sessionId: string): Obj {
  const session = store.sessions.get(sessionId);
  if (!session) throw new Error(`stripe stand-in: no checkout session ${sessionId}`);
  if (session.status !== "open") throw new Error(`stripe stand-in: checkout session ${sessionId} is ${String(session.status)}, not open`);
  if (session.mode !== "subscription")
    throw new Error(`stripe stand-in: completeSession only handles mode=subscription (got ${String(session.mode)})`);
  let customerId = str(session.customer);
  if (!customerId) customerId = createCustomer(store, { email: session.customer_email }).id as string;
  const customer = store.customers.get(customerId);

  const subData = obj(session.subscription_data);
  const start = now();
  const trialDays = num(subData.trial_period_days);
  const trialEnd = trialDays ? start + trialDays * DAY : null;
  const id = randomId("sub_");
  const items = lineItems(session).map((item) => {
    const price = priceFor(store, item);
    const interval = String(obj(price.recurring).interval);
    const end =
      trialEnd ?? start + (PERIOD_SECONDS[interval] ?? PERIOD_SECONDS.month!) * ((obj(price.recurring).interval_count as number) || 1);
    return {
      id: randomId("si_", 14),
      object: "subscription_item",
      created: start,
      current_period_start: start,
      current_period_end: end,
      metadata: {},
      price,
      quantity: num(item.quantity) ?? 1,
      subscription: id,
    };
  });
  const periodEnd = items[0]?.current_period_end ?? start + PERIOD_SECONDS.month!;
  const subscription: Obj = {
    id,
    object: "subscription",
    application: null,
    billing_cycle_anchor: trialEnd ?? start,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: "charge_automatically",
    created: start,
    currency: session.currency,
    // Since API version 2025-03-31 Stripe only puts the period on items; kept here too on purpose.
    current_period_start: start,
    current_period_end: periodEnd,
    customer: customerId,
    days_until_due: null,
    default_payment_method: randomId("pm_"),
    description: str(subData.description),
    discounts: [],
    ended_at: null,
    items: { object: "list", data: items, has_more: false, total_count: items.length, url: `/v1/subscription_items?subscription=${id}` },
    latest_invoice: randomId("in_"),
    livemode: false,
    metadata: mergeMetadata({}, subData.metadata),
    start_date: start,
    status: trialEnd ? "trialing" : "active",
    trial_end: trialEnd,
    trial_start: trialEnd ? start : null,
  };
  store.subscriptions.set(id, subscription);
  Object.assign(session, {
    status: "complete",
    payment_status: "paid",
    customer: customerId,
    customer_details: {
      address: null,
      email: customer?.email ?? session.customer_email ?? null,
      name: customer?.name ?? null,
      phone: null,
      tax_exempt: "none",
      tax_ids: [],
    },
    subscription: id,
    invoice: subscription.latest_invoice,
  });
  return subscription;
}

export function updateSubscription(sub: Obj, params: Obj): Obj {
  const keys = Object.keys(params).filter((k) => k !== "expand");
  if (sub.status === "canceled" && keys.some((k) => k !== "metadata" && k !== "cancellation_details")) {
    throw new StripeHttpError(
      400,
      "invalid_request_error",
      "A canceled subscription can only update its cancellation_details and metadata.",
    );
  }
  if ("metadata" in params) sub.metadata = mergeMetadata(sub.metadata, params.metadata);
  if ("description" in params) sub.description = str(params.description);
  if ("cancel_at_period_end" in params) {
    const on = params.cancel_at_period_end === "true";
    sub.cancel_at_period_end = on;
    sub.cancel_at = on ? sub.current_period_end : null;
    sub.canceled_at = on ? now() : null;
  }
  if ("cancel_at" in params) {
    const at = num(params.cancel_at);
    sub.cancel_at = at;
    sub.canceled_at = at === null ? null : now();
    if (at === null) sub.cancel_at_period_end = false;
  }
  if ("cancellation_details" in params) {
    const d = obj(params.cancellation_details);
    sub.cancellation_details = { ...obj(sub.cancellation_details), comment: str(d.comment), feedback: str(d.feedback) };
  }
  return sub;
}

export function cancelSubscription(sub: Obj): Obj {
  if (sub.status === "canceled") return sub;
  const t = now();
  Object.assign(sub, {
    status: "canceled",
    canceled_at: t,
    ended_at: t,
    cancel_at: null,
    cancellation_details: { ...obj(sub.cancellation_details), reason: "cancellation_requested" },
  });
  return sub;
}
