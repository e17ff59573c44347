import { PLANS, type Plan } from "../../../shared/deployments.js";
import type { Db } from "../../db/client.js";
import { findSubscription, type SubscriptionRow } from "./repo.js";

/** Provider statuses that keep Pro (past_due: the provider is still retrying the payment). */
export const PAID_STATUSES = new Set(["active", "trialing", "past_due"]);

/**
 * The plan a subscription row gives: Pro while the provider says it is paid, and - when it is
 * cancelling - only until the end of the period it was paid for. No row is Free.
 */
export function effectivePlan(row: SubscriptionRow | undefined, now = new Date()): Plan {
  if (!row || row.plan !== "pro" || !PAID_STATUSES.has(row.status)) return PLANS.free;
  if (row.cancelAtPeriodEnd && row.currentPeriodEnd && row.currentPeriodEnd <= now) return PLANS.free;
  return PLANS.pro;
}

/** The user's plan right now: the hosting limits follow it. */
export async function planOf(db: Db, userId: string): Promise<Plan> {
  return effectivePlan(await findSubscription(db, userId));
}
