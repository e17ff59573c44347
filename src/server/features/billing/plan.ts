import { PLANS, planView, type CurrentSubscription, type Plan } from "~/shared/billing.js";
import type { Db } from "../../db/client.js";
import { findSubscription, paidProSubscriptions, type SubscriptionRow } from "./repo.js";

// What a subscription means, decided in one place (docs/billing.md): the hosting limits, the
// subscription page and the test provider's status all read it from here.

/** Provider statuses that keep Pro (past_due: the provider is still retrying the payment). */
export const PAID_STATUSES = new Set(["active", "trialing", "past_due"]);
/** Paid statuses with nothing for the owner to see to. */
const GOOD_STANDING = new Set(["active", "trialing"]);

/** A subscription as a provider reports it (a stored row, or Stripe's live answer). */
export interface SubscriptionState {
  /** the plan it is for; only Pro is sold */
  plan: string;
  status: string;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

/**
 * The plan a subscription gives: Pro while the provider says it is paid, and - when it is
 * cancelling - only until the end of the period it was paid for. No subscription is Free.
 */
export function effectivePlan(state: SubscriptionState | undefined, now = new Date()): Plan {
  if (!state || state.plan !== "pro" || !PAID_STATUSES.has(state.status)) return PLANS.free;
  if (state.cancelAtPeriodEnd && state.currentPeriodEnd && state.currentPeriodEnd <= now) return PLANS.free;
  return PLANS.pro;
}

/** The user's plan right now: the hosting limits follow it. */
export async function planOf(db: Db, userId: string): Promise<Plan> {
  return effectivePlan(await findSubscription(db, userId));
}

/** The users on Pro right now, for sweeps that treat plans differently (request log retention, alerts). */
export async function proUserIds(db: Db, now = new Date()): Promise<string[]> {
  return (await paidProSubscriptions(db, [...PAID_STATUSES])).filter((s) => effectivePlan(s, now).id === "pro").map((s) => s.userId);
}

/** GET /api/subscriptions/current: the subscription as the page shows it, and what it allows. */
export function currentView(state: SubscriptionState | undefined): Omit<CurrentSubscription, "success"> {
  const plan = effectivePlan(state);
  if (plan.id === "free" || !state) {
    return {
      subscription: { status: "free", plan: planView(PLANS.free), period: null, currentPeriodEnd: null, cancelAtPeriodEnd: false },
      plan: "free",
      standing: "free",
      canCancel: false,
    };
  }
  return {
    subscription: {
      status: state.status,
      plan: planView(plan),
      period: "month",
      currentPeriodEnd: state.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    },
    plan: plan.id,
    standing: GOOD_STANDING.has(state.status) ? "good" : "attention",
    canCancel: !state.cancelAtPeriodEnd,
  };
}

export type { SubscriptionRow };
