// Plans, billing texts and the shapes of /api/subscriptions/* (docs/product.md, Billing;
// docs/billing.md for the providers).

export interface Plan {
  id: "free" | "pro";
  name: string;
  description: string;
  price_monthly: number;
  features: string[];
  /** awake at once ('concurrent') */
  maxRunning: number;
  /** deployments kept, asleep or awake, where deployments sleep (DEPLOY_IDLE_MS); without sleeping, every kept one runs */
  maxKept: number;
}

/** The two plans, defined once: their cards, and the hosting limits that follow them (docs/product.md, Deploy limits). */
export const PLANS: Record<Plan["id"], Plan> = {
  free: {
    id: "free",
    name: "Free",
    description: "For trying out hosted MCP servers",
    price_monthly: 0,
    features: ["3 deployments", "1 concurrent deployment", "Community support"],
    maxRunning: 1,
    maxKept: 3,
  },
  pro: {
    id: "pro",
    name: "Pro",
    description: "For people who rely on their MCP servers every day",
    price_monthly: 20,
    features: ["Unlimited deployments", "5 concurrent deployments", "Priority support", "Custom domains", "Advanced monitoring"],
    maxRunning: 5,
    maxKept: Number.POSITIVE_INFINITY,
  },
};

/**
 * A wake (or a deploy) beyond the awake limit puts the owner's least recently used deployment to
 * sleep only if it has been idle this long: no request and no open stream. Its runner writes when
 * it was last active every few seconds at most (5 s, idle.ts), an open stream included, so three
 * of those periods without a word mean nothing is using it.
 */
export const LRU_IDLE_MS = 15_000;

/** What a plan allows on this platform (docs/product.md#deploy-limits): what is kept and what is awake, never how often one deploys. */
export interface HostingAllowance {
  /** awake at once */
  maxRunning: number;
  /** kept, asleep or awake */
  maxKept: number;
  /** deployments sleep here (DEPLOY_IDLE_MS): going beyond maxRunning puts an idle one to sleep */
  sleep?: { lruIdleMs: number };
}

/** With sleeping (DEPLOY_IDLE_MS > 0) a plan keeps `maxKept` deployments, `maxRunning` of them awake; without, every kept one runs. */
export function planLimits(plan: Pick<Plan, "maxRunning" | "maxKept">, idleMs: number): HostingAllowance {
  const base = { maxRunning: plan.maxRunning };
  return idleMs > 0 ? { ...base, maxKept: plan.maxKept, sleep: { lruIdleMs: LRU_IDLE_MS } } : { ...base, maxKept: plan.maxRunning };
}

export const BILLING_TEXT = {
  mustLogin: "You need to be logged in to access subscription features",
  logIn: "Log In",
  title: "Subscription Plans",
  currentSubscription: "Current Subscription",
  availablePlans: "Available Plans",
  endsOn: (date: string) => `Your subscription will end on ${date}`,
  cancel: "Cancel Subscription",
  refresh: "Refresh Subscription",
  currentPlan: "Current Plan",
  useFree: "Use Free Plan",
  subscribeTo: (plan: string) => `Subscribe to ${plan}`,
  processing: "Processing...",
  switchedToFree: "Switched to free plan successfully",
  checkoutSuccess: "Your subscription has been successfully processed!",
  checkoutCanceled: "Subscription checkout was canceled.",
  authRequired: "Authentication required. Please try logging out and logging back in.",
  loadFailed: "Failed to load subscription information",
  processFailed: "Failed to process subscription",
  cancelFailed: "Failed to cancel subscription",
  checkoutFailed: "Failed to create checkout session",
  canceled: "Subscription canceled successfully",
  confirmCancel: "Cancel your Pro subscription? You keep Pro until the end of the current period, then move to the Free plan.",
  cancelMessage: (date: string) => `Subscription canceled successfully. You keep Pro until ${date}, then move to the Free plan.`,
  notSubscribed: "You have no paid subscription to cancel.",
  alreadySubscribed: "You already have an active Pro subscription.",
  unknownPlan: "Unknown plan: choose pro",
  // the built-in test-mode checkout (docs/billing.md, Two providers)
  testMode: "Test mode: no card is charged",
  testCheckoutTitle: "Checkout",
  confirmPayment: "Confirm payment",
  cancelCheckout: "Cancel",
  checkoutNotFound: "Checkout session not found",
  checkoutClosed: "This checkout session is no longer open.",
  stoppedByKeptLimit: (plan: string, n: number) =>
    `Stopped: your plan is now ${plan}, which keeps ${n} deployment${n === 1 ? "" : "s"}. Stop another deployment and deploy this one again, or upgrade to Pro.`,
  stoppedByPlan: (plan: string, n: number) =>
    `Stopped: your plan is now ${plan}, which runs ${n} deployment${n === 1 ? "" : "s"} at a time. Stop another deployment and deploy this one again, or upgrade to Pro.`,
} as const;

/** GET /api/subscriptions/current -> { success, subscription } */
export interface SubscriptionView {
  /** 'free' for no paid subscription; else the provider's status (active, trialing, past_due, canceled, ...) */
  status: string;
  plan: Pick<Plan, "id" | "name" | "description" | "price_monthly" | "features">;
  /** billing period of a paid plan */
  period: "month" | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

/**
 * GET /api/subscriptions/current -> the subscription, and what it means now as the server decides
 * it (the page shows these as they come and interprets no provider status itself).
 */
export interface CurrentSubscription {
  success: true;
  subscription: SubscriptionView;
  /** the plan in force now */
  plan: Plan["id"];
  /** free: no paid plan; good: paid (active, trialing); attention: still Pro while a payment is retried */
  standing: "free" | "good" | "attention";
  /** a paid plan that is not already cancelling: the page offers Cancel Subscription */
  canCancel: boolean;
}

/** GET /api/subscriptions/stripe-status -> { success, subscription, raw } */
export interface ProviderStatusView {
  status: string;
  productId: string;
  productName: string;
  interval: string;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

export const planView = (p: Plan): SubscriptionView["plan"] => ({
  id: p.id,
  name: p.name,
  description: p.description,
  price_monthly: p.price_monthly,
  features: p.features,
});

export const PLAN_LIST = [PLANS.free, PLANS.pro].map(planView);

export const priceLabel = (p: { price_monthly: number }) => (p.price_monthly === 0 ? "Free" : `$${p.price_monthly}/mo`);
