// A local HTTP stand-in for api.stripe.com, for tests. Point the official SDK at it with
//   new Stripe(key, { host: "127.0.0.1", port: standIn.port, protocol: "http" })
// It keeps customers, Checkout Sessions and subscriptions in memory, answers with objects shaped
// like Stripe's (a subset of the fields), and records every request it receives.
//
// Notes on how the SDK (v23) talks to it:
// - POST bodies are application/x-www-form-urlencoded with bracket keys (`metadata[userId]=u1`,
//   `line_items[0][price_data][unit_amount]=1900`); GET and DELETE send their params in the query.
// - Every v1 POST carries an Idempotency-Key, auto-generated as `stripe-node-retry-<uuid>` when the
//   caller gives none, so `requests[i].idempotencyKey` is set on every POST.
// - The SDK retries (2 times by default) on 409 and 5xx, so this stand-in never answers with those
//   for ordinary mistakes; it uses 400/401/404 like Stripe does.
// - Connections are kept alive; close() drops them so it never hangs.
//
// The maps hold the live objects: a test may edit them (e.g. set a subscription's status to
// "past_due") to simulate what Stripe would do on its own.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

type Obj = Record<string, unknown>;

export interface StandInRequest {
  method: string;
  /** The path without the query string, e.g. "/v1/checkout/sessions". */
  path: string;
  /** The decoded nested form body (POST) or query (GET, DELETE); values stay strings. */
  params: Record<string, unknown>;
  idempotencyKey?: string;
  authorization?: string;
  stripeVersion?: string;
}

export interface StripeStandIn {
  url: string;
  port: number;
  /** Every request received, in order (idempotent replays and failed requests included). */
  requests: StandInRequest[];
  customers: Map<string, Record<string, unknown>>;
  /** Checkout Sessions. */
  sessions: Map<string, Record<string, unknown>>;
  subscriptions: Map<string, Record<string, unknown>>;
  /**
   * Completes an open subscription-mode Checkout Session like a paying customer would: creates an
   * active subscription (a 30-day current period for monthly prices; metadata copied from
   * subscription_data.metadata; customer = session.customer, or a new customer made from
   * customer_email when the session had none), marks the session complete and paid with
   * session.subscription = the new id, and returns the subscription object.
   */
  completeSession(sessionId: string): Record<string, unknown>;
  close(): Promise<void>;
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DAY = 24 * 60 * 60;
const PERIOD_SECONDS: Record<string, number> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };
const UNSAFE_KEYS = new Set(["__proto__", "prototype", "constructor"]);

function randomId(prefix: string, length = 24): string {
  const bytes = crypto.randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

const now = () => Math.floor(Date.now() / 1000);

class StripeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly extra: Obj = {},
  ) {
    super(message);
  }
}

function missing(kind: string, id: string): StripeHttpError {
  return new StripeHttpError(404, "invalid_request_error", `No such ${kind}: '${id}'`, { code: "resource_missing", param: "id" });
}

/** Decodes `a[0][b]=1&m[k]=v&e[]=x` into { a: [{ b: "1" }], m: { k: "v" }, e: ["x"] }. Values stay strings. */
function decodeForm(text: string): Obj {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
    const segs = m ? [m[1]!, ...[...m[2]!.matchAll(/\[([^\]]*)\]/g)].map((g) => g[1]!)] : [key];
    if (segs.some((s) => UNSAFE_KEYS.has(s))) continue;
    let cur: Obj | unknown[] = root;
    for (let i = 0; i < segs.length; i++) {
      const container = cur as Record<string, unknown>;
      const seg = segs[i] === "" && Array.isArray(cur) ? String(cur.length) : segs[i]!;
      if (i === segs.length - 1) {
        container[seg] = value;
        break;
      }
      let next = container[seg];
      if (next === null || typeof next !== "object") {
        next = /^\d*$/.test(segs[i + 1]!) ? [] : {};
        container[seg] = next;
      }
      cur = next as Obj | unknown[];
    }
  }
  return root;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown): number | null => (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null);

/** Stripe's metadata update rules: `metadata=""` clears all, `metadata[k]=""` removes k. */
function mergeMetadata(current: unknown, update: unknown): Obj {
  if (update === "") return {};
  const out: Obj = { ...obj(current) };
  for (const [k, v] of Object.entries(obj(update))) {
    if (v === "") delete out[k];
    else out[k] = v;
  }
  return out;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const requests: StandInRequest[] = [];
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const prices = new Map<string, Obj>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();

  function createCustomer(params: Obj): Obj {
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
    customers.set(customer.id as string, customer);
    return customer;
  }

  /** A price object for a line item: from inline price_data, or a stand-in for a `price` id. */
  function priceFor(item: Obj): Obj {
    const given = str(item.price);
    if (given && prices.has(given)) return prices.get(given)!;
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
    prices.set(price.id as string, price);
    return price;
  }

  function lineItems(session: Obj): Obj[] {
    return (Array.isArray(session.line_items) ? session.line_items : []).map((raw) => obj(raw));
  }

  function createSession(params: Obj): Obj {
    const mode = str(params.mode);
    if (!mode || !["payment", "subscription", "setup"].includes(mode)) {
      throw new StripeHttpError(400, "invalid_request_error", "Missing required param: mode.", { code: "parameter_missing", param: "mode" });
    }
    if (str(params.customer) && str(params.customer_email)) {
      throw new StripeHttpError(400, "invalid_request_error", "You may only specify one of these parameters: customer, customer_email.");
    }
    const customerId = str(params.customer);
    if (customerId && !customers.has(customerId)) throw missing("customer", customerId);
    if (mode !== "setup" && lineItems(params).length === 0) {
      throw new StripeHttpError(400, "invalid_request_error", `You must provide at least one line item in \`${mode}\` mode.`, { param: "line_items" });
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
    sessions.set(id, session);
    return session;
  }

  function completeSession(sessionId: string): Obj {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`stripe stand-in: no checkout session ${sessionId}`);
    if (session.status !== "open") throw new Error(`stripe stand-in: checkout session ${sessionId} is ${String(session.status)}, not open`);
    if (session.mode !== "subscription") throw new Error(`stripe stand-in: completeSession only handles mode=subscription (got ${String(session.mode)})`);
    let customerId = str(session.customer);
    if (!customerId) customerId = createCustomer({ email: session.customer_email }).id as string;
    const customer = customers.get(customerId);

    const subData = obj(session.subscription_data);
    const start = now();
    const trialDays = num(subData.trial_period_days);
    const trialEnd = trialDays ? start + trialDays * DAY : null;
    const id = randomId("sub_");
    const items = lineItems(session).map((item) => {
      const price = priceFor(item);
      const interval = String(obj(price.recurring).interval);
      const end = trialEnd ?? start + (PERIOD_SECONDS[interval] ?? PERIOD_SECONDS.month!) * ((obj(price.recurring).interval_count as number) || 1);
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
    subscriptions.set(id, subscription);
    Object.assign(session, {
      status: "complete",
      payment_status: "paid",
      customer: customerId,
      customer_details: { address: null, email: customer?.email ?? session.customer_email ?? null, name: customer?.name ?? null, phone: null, tax_exempt: "none", tax_ids: [] },
      subscription: id,
      invoice: subscription.latest_invoice,
    });
    return subscription;
  }

  function updateSubscription(sub: Obj, params: Obj): Obj {
    const keys = Object.keys(params).filter((k) => k !== "expand");
    if (sub.status === "canceled" && keys.some((k) => k !== "metadata" && k !== "cancellation_details")) {
      throw new StripeHttpError(400, "invalid_request_error", "A canceled subscription can only update its cancellation_details and metadata.");
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

  function cancelSubscription(sub: Obj): Obj {
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

  function list(data: Obj[], params: Obj, url: string): Obj {
    const limit = Math.min(Math.max(num(params.limit) ?? 10, 1), 100);
    let rows = [...data].sort((a, b) => (b.created as number) - (a.created as number));
    const after = str(params.starting_after);
    if (after) rows = rows.slice(rows.findIndex((r) => r.id === after) + 1);
    return { object: "list", data: rows.slice(0, limit), has_more: rows.length > limit, url };
  }

  /** Applies `expand[]` paths (top-level fields, or `data.<field>` on lists) to a copy of the answer. */
  function expand(answer: Obj, params: Obj): Obj {
    const paths = Array.isArray(params.expand) ? params.expand.filter((p): p is string => typeof p === "string") : [];
    if (paths.length === 0) return answer;
    const copy = structuredClone(answer);
    const expandOne = (target: Obj, field: string) => {
      const value = target[field];
      if (field === "line_items" && target.object === "checkout.session") {
        const items = lineItems(target).map((item) => {
          const price = priceFor(item);
          const quantity = num(item.quantity) ?? 1;
          const total = ((price.unit_amount as number | null) ?? 0) * quantity;
          return { id: randomId("li_"), object: "item", amount_subtotal: total, amount_total: total, currency: price.currency, description: str(obj(obj(item.price_data).product_data).name), price, quantity };
        });
        target.line_items = { object: "list", data: items, has_more: false, url: `/v1/checkout/sessions/${String(target.id)}/line_items` };
        return;
      }
      if (typeof value !== "string") return;
      const found = customers.get(value) ?? subscriptions.get(value) ?? sessions.get(value);
      if (found) target[field] = structuredClone(found);
    };
    for (const p of paths) {
      const [head, ...rest] = p.split(".");
      if (head === "data" && copy.object === "list" && rest.length === 1) {
        for (const row of copy.data as Obj[]) expandOne(row, rest[0]!);
      } else if (rest.length === 0 && head) {
        expandOne(copy, head);
      }
    }
    return copy;
  }

  function route(method: string, path: string, params: Obj): Obj {
    const seg = path.split("/").filter(Boolean).map((s) => decodeURIComponent(s));
    if (seg[0] !== "v1") throw new StripeHttpError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`);
    const [, resource, a, b, c] = seg;
    if (resource === "customers") {
      if (method === "POST" && a === undefined) return createCustomer(params);
      if (method === "GET" && a === undefined) {
        const email = str(params.email);
        return list([...customers.values()].filter((cu) => !email || cu.email === email), params, "/v1/customers");
      }
      if (a !== undefined && b === undefined) {
        const customer = customers.get(a);
        if (!customer) throw missing("customer", a);
        if (method === "GET") return customer;
        if (method === "POST") {
          for (const k of ["email", "name", "description", "phone"]) if (k in params) customer[k] = str(params[k]);
          if ("metadata" in params) customer.metadata = mergeMetadata(customer.metadata, params.metadata);
          return customer;
        }
      }
    }
    if (resource === "checkout" && a === "sessions") {
      if (method === "POST" && b === undefined) return createSession(params);
      if (b !== undefined) {
        const session = sessions.get(b);
        if (!session) throw missing("checkout.session", b);
        if (method === "GET" && c === undefined) return session;
        if (method === "POST" && c === "expire" && seg.length === 5) {
          if (session.status !== "open") {
            throw new StripeHttpError(400, "invalid_request_error", `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(session.status)}".`);
          }
          Object.assign(session, { status: "expired", url: null });
          return session;
        }
      }
    }
    if (resource === "subscriptions") {
      if (method === "GET" && a === undefined) {
        const customer = str(params.customer);
        const status = str(params.status);
        const rows = [...subscriptions.values()].filter(
          (s) => (!customer || s.customer === customer) && (status === "all" ? true : status ? s.status === status : s.status !== "canceled"),
        );
        return list(rows, params, "/v1/subscriptions");
      }
      if (a !== undefined && b === undefined) {
        const sub = subscriptions.get(a);
        if (!sub) throw missing("subscription", a);
        if (method === "GET") return sub;
        if (method === "POST") return updateSubscription(sub, params);
        if (method === "DELETE") return cancelSubscription(sub);
      }
    }
    throw new StripeHttpError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = (req.method ?? "GET").toUpperCase();
      const url = new URL(req.url ?? "/", "http://stand-in");
      const raw = Buffer.concat(chunks).toString("utf8");
      const params = decodeForm(method === "GET" || method === "DELETE" ? url.search : raw);
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const entry: StandInRequest = { method, path: url.pathname, params };
      const idempotencyKey = header("idempotency-key");
      const authorization = header("authorization");
      const stripeVersion = header("stripe-version");
      if (idempotencyKey !== undefined) entry.idempotencyKey = idempotencyKey;
      if (authorization !== undefined) entry.authorization = authorization;
      if (stripeVersion !== undefined) entry.stripeVersion = stripeVersion;
      requests.push(entry);

      const send = (status: number, body: string, extraHeaders: Record<string, string> = {}) => {
        res.writeHead(status, {
          "content-type": "application/json",
          "request-id": randomId("req_", 14),
          ...(stripeVersion ? { "stripe-version": stripeVersion } : {}),
          ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
          ...extraHeaders,
        });
        res.end(body);
      };
      const errorBody = (e: StripeHttpError) => JSON.stringify({ error: { type: e.type, message: e.message, ...e.extra } }, null, 2);

      if (!authorization || !/^Bearer (sk|rk)_\S+$/.test(authorization)) {
        send(401, errorBody(new StripeHttpError(401, "invalid_request_error", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').")));
        return;
      }

      const cacheKey = idempotencyKey && method === "POST" ? `${authorization}\n${idempotencyKey}` : null;
      const fingerprint = `${method} ${url.pathname}\n${raw}`;
      const cached = cacheKey ? idempotent.get(cacheKey) : undefined;
      if (cached) {
        if (cached.fingerprint !== fingerprint) {
          const e = new StripeHttpError(400, "idempotency_error", `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`);
          send(400, errorBody(e));
        } else {
          send(cached.status, cached.body, { "idempotent-replayed": "true" });
        }
        return;
      }

      let status = 200;
      let body: string;
      try {
        body = JSON.stringify(expand(route(method, url.pathname, params), params), null, 2);
      } catch (err) {
        const e = err instanceof StripeHttpError ? err : new StripeHttpError(500, "api_error", `stripe stand-in failed: ${String(err)}`);
        status = e.status;
        body = errorBody(e);
      }
      if (cacheKey && status < 500) idempotent.set(cacheKey, { fingerprint, status, body });
      // A stand-in bug is not worth the SDK's retries.
      send(status, body, status >= 500 ? { "stripe-should-retry": "false" } : {});
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    customers,
    sessions,
    subscriptions,
    completeSession,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
