// The stand-in's memory and its customers, prices and Checkout Sessions, built with the subset of
// Stripe's fields the platform reads (plus a few kept so tests can look at what was sent).
import { DAY, StripeHttpError, mergeMetadata, missing, now, num, obj, randomId, str, type Obj } from "./form.js";

/** The live objects. A test may edit them to simulate what Stripe would do on its own. */
export interface StandInStore {
  customers: Map<string, Obj>;
  /** Checkout Sessions. */
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  prices: Map<string, Obj>;
}

export function createStore(): StandInStore {
  return { customers: new Map(), sessions: new Map(), subscriptions: new Map(), prices: new Map() };
}

export function createCustomer(store: StandInStore, params: Obj): Obj {
  const customer: Obj = {
    id: randomId("cus_", 14),
    object: "customer",
    address: null,
    balance: 0,
    created: now(),
    currency: null,
    default_source: null,
    delinquent: false,
    description: str(params.description),
    email: str(params.email),
    invoice_prefix: randomId("", 8).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: mergeMetadata({}, params.metadata),
    name: str(params.name),
    phone: str(params.phone),
    preferred_locales: [],
    shipping: null,
    tax_exempt: "none",
    test_clock: null,
  };
  store.customers.set(customer.id as string, customer);
  return customer;
}

/** A price object for a line item: from inline price_data, or a stand-in for a `price` id. */
export function priceFor(store: StandInStore, item: Obj): Obj {
  const given = str(item.price);
  if (given && store.prices.has(given)) return store.prices.get(given)!;
  const data = obj(item.price_data);
  const recurring = obj(data.recurring);
  const unitAmount = num(data.unit_amount);
  const product = str(data.product) ?? randomId("prod_", 14);
  const price: Obj = {
    id: given ?? randomId("price_"),
    object: "price",
    active: true,
    billing_scheme: "per_unit",
    created: now(),
    currency: str(data.currency) ?? "usd",
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product,
    product_data: data.product_data ?? null, // not a Stripe field; kept so tests can see the name given
    recurring: {
      interval: str(recurring.interval) ?? "month",
      interval_count: num(recurring.interval_count) ?? 1,
      meter: null,
      usage_type: "licensed",
    },
    tax_behavior: str(data.tax_behavior) ?? "unspecified",
    type: "recurring",
    unit_amount: unitAmount,
    unit_amount_decimal: unitAmount === null ? null : String(unitAmount),
  };
  store.prices.set(price.id as string, price);
  return price;
}

export function lineItems(session: Obj): Obj[] {
  return (Array.isArray(session.line_items) ? session.line_items : []).map((raw) => obj(raw));
}

export function createSession(store: StandInStore, params: Obj): Obj {
  const mode = str(params.mode);
  if (!mode || !["payment", "subscription", "setup"].includes(mode)) {
    throw new StripeHttpError(400, "invalid_request_error", "Missing required param: mode.", { code: "parameter_missing", param: "mode" });
  }
  if (str(params.customer) && str(params.customer_email)) {
    throw new StripeHttpError(400, "invalid_request_error", "You may only specify one of these parameters: customer, customer_email.");
  }
  const customerId = str(params.customer);
  if (customerId && !store.customers.has(customerId)) throw missing("customer", customerId);
  if (mode !== "setup" && lineItems(params).length === 0) {
    throw new StripeHttpError(400, "invalid_request_error", `You must provide at least one line item in \`${mode}\` mode.`, {
      param: "line_items",
    });
  }
  let amount = 0;
  let currency: string | null = null;
  for (const item of lineItems(params)) {
    const data = obj(item.price_data);
    amount += (num(data.unit_amount) ?? 0) * (num(item.quantity) ?? 1);
    currency ??= str(data.currency);
  }
  const id = randomId("cs_test_", 58);
  const session: Obj = {
    // Every given param is echoed back (Stripe itself omits line_items unless expanded, and never
    // returns subscription_data; both are kept here so tests can look at them).
    ...Object.fromEntries(Object.entries(params).filter(([k]) => k !== "expand")),
    id,
    object: "checkout.session",
    after_expiration: null,
    allow_promotion_codes: params.allow_promotion_codes === "true" ? true : null,
    amount_subtotal: amount,
    amount_total: amount,
    cancel_url: str(params.cancel_url),
    client_reference_id: str(params.client_reference_id),
    created: now(),
    currency: currency ?? (mode === "setup" ? null : "usd"),
    customer: customerId,
    customer_creation: customerId ? null : mode === "payment" ? "if_required" : "always",
    customer_details: null,
    customer_email: str(params.customer_email),
    expires_at: now() + DAY,
    invoice: null,
    livemode: false,
    locale: str(params.locale),
    metadata: mergeMetadata({}, params.metadata),
    mode,
    payment_intent: null,
    payment_method_types: ["card"],
    payment_status: mode === "setup" ? "no_payment_required" : "unpaid",
    setup_intent: null,
    status: "open",
    subscription: null,
    success_url: str(params.success_url),
    ui_mode: str(params.ui_mode) ?? "hosted",
    url: `https://checkout.stripe.com/c/pay/${id}`,
  };
  store.sessions.set(id, session);
  return session;
}
