import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/middleware.js";
import { orgOfAccount } from "../orgs/accounts.js";
import { requireViewer } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import type { Billing } from "./service.js";

// /api/subscriptions/* and the Stripe webhook (docs/product.md#billing, docs/billing.md).

const auth: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];
const planSchema = z.object({
  id: z.enum(["free", "pro"]),
  name: z.string(),
  description: z.string(),
  price_monthly: z.number(),
  features: z.array(z.string()),
});
const subscriptionView = z.object({
  status: z.string(),
  plan: planSchema,
  period: z.enum(["month"]).nullable(),
  currentPeriodEnd: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
const currentAnswer = z.object({
  success: z.literal(true),
  subscription: subscriptionView,
  plan: z.enum(["free", "pro"]).describe("The plan in force now, as the server decides it from the provider's word"),
  standing: z
    .enum(["free", "good", "attention"])
    .describe("free: no paid plan; good: paid; attention: still Pro while a payment is retried"),
  canCancel: z.boolean().describe("A paid plan that is not already cancelling"),
});
const providerView = z.object({
  status: z.string(),
  productId: z.string(),
  productName: z.string(),
  interval: z.string(),
  currentPeriodEnd: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
const ok = (schema: z.ZodTypeAny, description: string) => ({ content: { "application/json": { schema } }, description });
const urlAnswer = z.object({ success: z.literal(true), url: z.string() });
const idParams = z.object({ id: z.string().min(1).max(200) });
/** `org`: an organisation's slug, whose plan its owners read, buy and cancel (absent: your own) */
const orgQuery = z.object({ org: z.string().max(39).optional() });

const currentRoute = createRoute({
  method: "get",
  path: "/subscriptions/current",
  tags: ["subscriptions"],
  summary: "Your plan (or an organisation's you own, with org): Free, or Pro with its status and period",
  security: auth,
  request: { query: orgQuery },
  responses: {
    200: ok(currentAnswer, "The subscription and the plan in force"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an owner of the organisation"),
    404: jsonError("No such organisation of yours"),
  },
});

const statusRoute = createRoute({
  method: "get",
  path: "/subscriptions/stripe-status",
  tags: ["subscriptions"],
  summary: "The payment provider's view of your subscription (Stripe, or the built-in test mode)",
  security: auth,
  responses: {
    200: ok(
      z.object({ success: z.boolean(), subscription: providerView.nullable(), raw: z.unknown(), message: z.string().optional() }),
      "Provider status; success false without a paid subscription",
    ),
    401: jsonError("Not signed in"),
  },
});

const checkoutRoute = createRoute({
  method: "post",
  path: "/subscriptions/checkout",
  tags: ["subscriptions"],
  summary: "Start a checkout for Pro (for an organisation you own, with org); go to the returned URL (one open checkout per payer)",
  security: auth,
  request: {
    query: orgQuery,
    body: {
      required: true,
      content: { "application/json": { schema: z.object({ plan: z.string().max(20), period: z.enum(["monthly"]).default("monthly") }) } },
    },
  },
  responses: {
    200: ok(urlAnswer, "Checkout URL"),
    400: jsonError("Unknown plan"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an owner of the organisation"),
    404: jsonError("No such organisation of yours"),
    409: jsonError("Already on Pro"),
  },
});

const cancelRoute = createRoute({
  method: "post",
  path: "/subscriptions/cancel",
  tags: ["subscriptions"],
  summary: "Cancel Pro at the end of the paid period (an organisation's you own, with org)",
  security: auth,
  request: { query: orgQuery },
  responses: {
    200: ok(z.object({ success: z.literal(true), message: z.string() }), "Cancelling at period end"),
    400: jsonError("No paid subscription"),
    401: jsonError("Not signed in"),
    403: jsonError("Not an owner of the organisation"),
    404: jsonError("No such organisation of yours"),
  },
});

const testCheckoutRoute = createRoute({
  method: "get",
  path: "/subscriptions/test-checkout/{id}",
  tags: ["subscriptions"],
  summary: "Test mode: a checkout session of the built-in provider",
  security: auth,
  request: { params: idParams },
  responses: {
    200: ok(z.object({ id: z.string(), status: z.string(), plan: planSchema }), "Session"),
    401: jsonError("Not signed in"),
    404: jsonError("No such session of yours"),
  },
});

const testDecision = (action: "confirm" | "cancel") =>
  createRoute({
    method: "post",
    path: `/subscriptions/test-checkout/{id}/${action}`,
    tags: ["subscriptions"],
    summary: action === "confirm" ? "Test mode: confirm the payment (no card is charged); Pro starts now" : "Test mode: leave the checkout",
    security: auth,
    request: { params: idParams },
    responses: {
      200: ok(urlAnswer, "Where to go next"),
      401: jsonError("Not signed in"),
      404: jsonError("No such session of yours"),
      409: jsonError("Not open any more"),
    },
  });

const endPeriodRoute = createRoute({
  method: "post",
  path: "/subscriptions/test-clock/end-period",
  tags: ["subscriptions"],
  summary: "Test mode outside production: end the current period now, like a Stripe test clock",
  security: auth,
  responses: {
    200: ok(z.object({ success: z.literal(true) }), "Period ended"),
    400: jsonError("No test-mode subscription"),
    401: jsonError("Not signed in"),
    404: jsonError("Not available"),
  },
});

const webhookRoute = createRoute({
  method: "post",
  path: "/webhooks/stripe",
  tags: ["subscriptions"],
  summary: "Stripe events (signed with STRIPE_WEBHOOK_SECRET); each event is applied once",
  request: { headers: z.object({ "stripe-signature": z.string().optional() }) },
  responses: {
    200: ok(z.object({ received: z.literal(true), duplicate: z.boolean() }), "Received"),
    400: jsonError("Bad or missing signature"),
    404: jsonError("Stripe is not configured"),
  },
});

export function billingRoutes(billing: Billing) {
  /** The viewer, or the organisation `?org=` names when they own it; its plan's changes go to its audit log. */
  const payerOf = async (c: Context<AppEnv>) => {
    const viewer = requireViewer(c);
    const payer = await billing.payer(viewer, c.req.query("org"));
    const orgId = orgOfAccount(payer.id);
    if (orgId) c.set("audit", { orgId });
    return payer;
  };
  return apiRouter()
    .openapi(currentRoute, async (c) => c.json(await billing.current(await payerOf(c)), 200))
    .openapi(statusRoute, async (c) => c.json(await billing.providerStatus(requireViewer(c)), 200))
    .openapi(checkoutRoute, async (c) => {
      const payer = await payerOf(c);
      return c.json({ success: true as const, url: await billing.checkout(payer, c.req.valid("json").plan.toLowerCase()) }, 200);
    })
    .openapi(cancelRoute, async (c) => c.json({ success: true as const, message: await billing.cancel(await payerOf(c)) }, 200))
    .openapi(testCheckoutRoute, async (c) => c.json(await billing.testCheckout(requireViewer(c), c.req.valid("param").id), 200))
    .openapi(testDecision("confirm"), async (c) =>
      c.json({ success: true as const, url: await billing.confirmTestCheckout(requireViewer(c), c.req.valid("param").id) }, 200),
    )
    .openapi(testDecision("cancel"), async (c) =>
      c.json({ success: true as const, url: await billing.cancelTestCheckout(requireViewer(c), c.req.valid("param").id) }, 200),
    )
    .openapi(endPeriodRoute, async (c) => {
      await billing.endPeriodNow(requireViewer(c));
      return c.json({ success: true as const }, 200);
    })
    .openapi(webhookRoute, async (c) => {
      // Nothing is read from anyone when Stripe is not configured.
      if (!billing.webhooksEnabled) return c.json({ error: "Stripe webhooks are not configured", code: "not_found" }, 404);
      // The signature covers the exact bytes Stripe sent: read the raw body, never re-serialised JSON.
      const { applied } = await billing.webhook(await c.req.text(), c.req.header("stripe-signature"));
      return c.json({ received: true as const, duplicate: !applied }, 200);
    });
}
