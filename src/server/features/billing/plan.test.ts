import { describe, expect, it } from "vitest";
import { currentView, effectivePlan, type SubscriptionState } from "./plan.js";

// What a provider status means, decided once on the server (docs/billing.md): the plan, and what
// the subscription page shows for it.

const DAY = 86_400_000;
const state = (s: Partial<SubscriptionState>): SubscriptionState => ({
  plan: "pro",
  status: "active",
  currentPeriodEnd: new Date(Date.now() + 10 * DAY),
  cancelAtPeriodEnd: false,
  ...s,
});

describe("effectivePlan", () => {
  it("is Pro while the provider says paid, Free otherwise", () => {
    expect(effectivePlan(undefined).id).toBe("free");
    for (const status of ["active", "trialing", "past_due"]) expect(effectivePlan(state({ status })).id).toBe("pro");
    for (const status of ["canceled", "incomplete", "unpaid", "incomplete_expired"])
      expect(effectivePlan(state({ status })).id).toBe("free");
  });

  it("keeps a cancelling subscription Pro until the end of the paid period", () => {
    expect(effectivePlan(state({ cancelAtPeriodEnd: true })).id).toBe("pro");
    expect(effectivePlan(state({ cancelAtPeriodEnd: true, currentPeriodEnd: new Date(Date.now() - 1000) })).id).toBe("free");
  });
});

describe("currentView", () => {
  it("shows no subscription as Free with nothing to cancel", () => {
    expect(currentView(undefined)).toEqual({
      subscription: {
        status: "free",
        plan: expect.objectContaining({ id: "free" }),
        period: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
      },
      plan: "free",
      standing: "free",
      canCancel: false,
    });
    expect(currentView(state({ status: "canceled" }))).toMatchObject({
      subscription: { status: "free" },
      plan: "free",
      standing: "free",
      canCancel: false,
    });
  });

  it("shows Pro with its status, period and whether Cancel is offered", () => {
    const end = new Date(Date.now() + 5 * DAY);
    expect(currentView(state({ currentPeriodEnd: end }))).toEqual({
      subscription: {
        status: "active",
        plan: expect.objectContaining({ id: "pro", price_monthly: 20 }),
        period: "month",
        currentPeriodEnd: end.toISOString(),
        cancelAtPeriodEnd: false,
      },
      plan: "pro",
      standing: "good",
      canCancel: true,
    });
    expect(currentView(state({ status: "trialing" }))).toMatchObject({ standing: "good" });
    expect(currentView(state({ status: "past_due" }))).toMatchObject({ plan: "pro", standing: "attention", canCancel: true });
    expect(currentView(state({ cancelAtPeriodEnd: true }))).toMatchObject({
      plan: "pro",
      subscription: { cancelAtPeriodEnd: true },
      canCancel: false,
    });
  });
});
