import Stripe from "stripe";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { PAID_STATUSES } from "./plan.js";
import { findSubscription, lockUser, saveSubscription, userExists, userIdForCustomer, type Tx } from "./repo.js";

// Stripe's client, and how a Stripe subscription is written to its user's row: shared by the
// provider (cancel), the webhooks and the reconcile command (docs/billing.md, Webhooks).

/** Calls a person waits for: fail fast rather than hold the page. */
export const INTERACTIVE = { timeout: 8000, maxNetworkRetries: 1 };

/** Stripe's client, pointed at STRIPE_API_BASE when set (tests use a local stand-in). */
export function stripeClient(config: Config): Stripe | undefined {
  if (!config.STRIPE_SECRET_KEY) return undefined;
  const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
  return new Stripe(config.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(base
      ? {
          host: base.hostname,
          port: Number(base.port || (base.protocol === "https:" ? 443 : 80)),
          protocol: base.protocol.replace(":", "") as "http" | "https",
        }
      : {}),
  });
}

/** A failed call to Stripe (unreachable, refused) becomes a clear 503, not a bare 500. */
export async function viaStripe<T>(call: Promise<T>, message: string, log: Logger): Promise<T> {
  try {
    return await call;
  } catch (e) {
    log.error({ err: e }, "Stripe call failed");
    throw new AppError("unavailable", message);
  }
}

/** The fields of a Stripe subscription the app keeps (the period end moved onto items in newer API versions). */
export function subscriptionFields(sub: Stripe.Subscription) {
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

export interface ApplyOptions {
  tx?: Tx;
  /** when the event was created at Stripe */
  eventAt?: Date;
  /** the user named by the checkout session, when the subscription does not say */
  userHint?: string;
  /** customer.subscription.deleted */
  deleted?: boolean;
  /** just read from Stripe itself: always wins */
  authoritative?: boolean;
}

/**
 * Writes a Stripe subscription's state for its user; returns that user. `authoritative` (just read
 * from Stripe) always wins; an event applies only if it is not older than the last one applied,
 * and never revives a subscription that was canceled.
 */
export async function applySubscription(
  d: { db: Db; log: Logger },
  sub: Stripe.Subscription,
  o: ApplyOptions,
): Promise<string | undefined> {
  const run = async (tx: Tx) => {
    const f = subscriptionFields(sub);
    let userId = sub.metadata?.userId || o.userHint;
    if (!userId && f.customerId) userId = await userIdForCustomer(tx, f.customerId);
    if (!userId || !(await userExists(tx, userId))) {
      d.log.warn({ subscription: sub.id }, "a Stripe subscription for no known user was ignored");
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
    await saveSubscription(tx, {
      userId,
      provider: "stripe",
      plan: "pro",
      status,
      customerId: f.customerId,
      subscriptionId: sub.id,
      currentPeriodEnd: f.currentPeriodEnd,
      cancelAtPeriodEnd: f.cancelAtPeriodEnd,
      lastEventAt,
    });
    return userId;
  };
  return o.tx ? run(o.tx) : d.db.transaction(run);
}
