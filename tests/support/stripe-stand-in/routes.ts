// The stand-in's API surface: which method and path does what, list pages, and `expand[]`.
import { StripeHttpError, mergeMetadata, missing, num, obj, randomId, str, type Obj } from "./form.js";
import { createCustomer, createSession, lineItems, priceFor, type StandInStore } from "./store.js";
import { cancelSubscription, updateSubscription } from "./subscriptions.js";

function list(data: Obj[], params: Obj, url: string): Obj {
  const limit = Math.min(Math.max(num(params.limit) ?? 10, 1), 100);
  let rows = [...data].sort((a, b) => (b.created as number) - (a.created as number));
  const after = str(params.starting_after);
  if (after) rows = rows.slice(rows.findIndex((r) => r.id === after) + 1);
  return { object: "list", data: rows.slice(0, limit), has_more: rows.length > limit, url };
}

/** Applies `expand[]` paths (top-level fields, or `data.<field>` on lists) to a copy of the answer. */
export function expand(store: StandInStore, answer: Obj, params: Obj): Obj {
  const paths = Array.isArray(params.expand) ? params.expand.filter((p): p is string => typeof p === "string") : [];
  if (paths.length === 0) return answer;
  const copy = structuredClone(answer);
  const expandOne = (target: Obj, field: string) => {
    const value = target[field];
    if (field === "line_items" && target.object === "checkout.session") {
      const items = lineItems(target).map((item) => {
        const price = priceFor(store, item);
        const quantity = num(item.quantity) ?? 1;
        const total = ((price.unit_amount as number | null) ?? 0) * quantity;
        return {
          id: randomId("li_"),
          object: "item",
          amount_subtotal: total,
          amount_total: total,
          currency: price.currency,
          description: str(obj(obj(item.price_data).product_data).name),
          price,
          quantity,
        };
      });
      target.line_items = { object: "list", data: items, has_more: false, url: `/v1/checkout/sessions/${String(target.id)}/line_items` };
      return;
    }
    if (typeof value !== "string") return;
    const found = store.customers.get(value) ?? store.subscriptions.get(value) ?? store.sessions.get(value);
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

/** Answers one API call with the object Stripe would return, or throws the StripeHttpError it would. */
export function route(store: StandInStore, method: string, path: string, params: Obj): Obj {
  const { customers, sessions, subscriptions } = store;
  const seg = path
    .split("/")
    .filter(Boolean)
    .map((s) => decodeURIComponent(s));
  if (seg[0] !== "v1") throw new StripeHttpError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`);
  const [, resource, a, b, c] = seg;
  if (resource === "customers") {
    if (method === "POST" && a === undefined) return createCustomer(store, params);
    if (method === "GET" && a === undefined) {
      const email = str(params.email);
      return list(
        [...customers.values()].filter((cu) => !email || cu.email === email),
        params,
        "/v1/customers",
      );
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
    if (method === "POST" && b === undefined) return createSession(store, params);
    if (b !== undefined) {
      const session = sessions.get(b);
      if (!session) throw missing("checkout.session", b);
      if (method === "GET" && c === undefined) return session;
      if (method === "POST" && c === "expire" && seg.length === 5) {
        if (session.status !== "open") {
          throw new StripeHttpError(
            400,
            "invalid_request_error",
            `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(session.status)}".`,
          );
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
  throw new StripeHttpError(
    404,
    "invalid_request_error",
    `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
  );
}
