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
//
// This file is the HTTP server (API keys, idempotency, errors); the folder stripe-stand-in/ holds
// the rest: form.ts (form decoding, ids, errors), store.ts (customers, prices, Checkout Sessions),
// subscriptions.ts (completing a session, updating and cancelling) and routes.ts (the API paths).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { StripeHttpError, decodeForm, randomId } from "./stripe-stand-in/form.js";
import { expand, route } from "./stripe-stand-in/routes.js";
import { createStore } from "./stripe-stand-in/store.js";
import { completeSession } from "./stripe-stand-in/subscriptions.js";

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

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const requests: StandInRequest[] = [];
  const store = createStore();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();

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
        send(
          401,
          errorBody(
            new StripeHttpError(
              401,
              "invalid_request_error",
              "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
            ),
          ),
        );
        return;
      }

      const cacheKey = idempotencyKey && method === "POST" ? `${authorization}\n${idempotencyKey}` : null;
      const fingerprint = `${method} ${url.pathname}\n${raw}`;
      const cached = cacheKey ? idempotent.get(cacheKey) : undefined;
      if (cached) {
        if (cached.fingerprint !== fingerprint) {
          const e = new StripeHttpError(
            400,
            "idempotency_error",
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          );
          send(400, errorBody(e));
        } else {
          send(cached.status, cached.body, { "idempotent-replayed": "true" });
        }
        return;
      }

      let status = 200;
      let body: string;
      try {
        body = JSON.stringify(expand(store, route(store, method, url.pathname, params), params), null, 2);
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
    customers: store.customers,
    sessions: store.sessions,
    subscriptions: store.subscriptions,
    completeSession: (sessionId) => completeSession(store, sessionId),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
