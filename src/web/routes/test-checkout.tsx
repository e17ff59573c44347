import { ArrowLeft, Check, FlaskConical, Loader2 } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Link, redirect } from "react-router";
import { BILLING_TEXT, priceLabel, type SubscriptionView } from "../../shared/billing";
import { Alert, Button, linkClass } from "../components/ui";
import { api } from "../lib/api";
import type { Route } from "./+types/test-checkout";

// docs/product.md#checkout: without Stripe keys this page of the app stands in for the payment
// provider's checkout. It confirms or cancels and returns to /subscription like Stripe would.

export function meta({ data }: Route.MetaArgs) {
  return [{ title: `${BILLING_TEXT.testCheckoutTitle} - ${data?.site ?? "Switchboard"}` }, { name: "robots", content: "noindex" }];
}

export function loader({ context, params }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=/subscription/test-checkout/${encodeURIComponent(params.id)}`);
  return { site: context.config.SITE_NAME, id: params.id };
}

interface TestCheckout {
  id: string;
  status: "open" | "complete" | "canceled" | "expired";
  plan: SubscriptionView["plan"];
}

type State = { kind: "loading" } | { kind: "missing" } | { kind: "error"; message: string } | { kind: "ready"; checkout: TestCheckout };

const TIMEOUT_MS = 20_000;

export default function TestCheckoutPage({ loaderData }: Route.ComponentProps) {
  const { id } = loaderData;
  const [state, setState] = useState<State>({ kind: "loading" });
  const [busy, setBusy] = useState<"confirm" | "cancel" | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const r = await api<TestCheckout>(`/api/subscriptions/test-checkout/${encodeURIComponent(id)}`, { timeoutMs: TIMEOUT_MS });
    if (r.ok && r.data) setState({ kind: "ready", checkout: r.data });
    else if (r.status === 404) setState({ kind: "missing" });
    else setState({ kind: "error", message: r.status === 401 ? BILLING_TEXT.authRequired : (!r.ok && r.error) || BILLING_TEXT.loadFailed });
  }, [id]);

  useEffect(() => {
    const first = setTimeout(() => void load(), 0);
    return () => clearTimeout(first);
  }, [load]);

  async function finish(action: "confirm" | "cancel") {
    setBusy(action);
    setError(null);
    const r = await api<{ success?: boolean; url?: string }>(`/api/subscriptions/test-checkout/${encodeURIComponent(id)}/${action}`, { body: {}, timeoutMs: TIMEOUT_MS });
    if (r.ok && r.data?.url) {
      window.location.assign(r.data.url);
      return;
    }
    setBusy(null);
    setError(r.status === 401 ? BILLING_TEXT.authRequired : (!r.ok && r.error) || BILLING_TEXT.processFailed);
    // It may have been completed or canceled elsewhere: show what it is now.
    void load();
  }

  return (
    <section className="mx-auto w-full max-w-lg px-4 py-12">
      <div className="overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900/60">
        <p
          role="note"
          className="flex items-center justify-center gap-2 border-b border-amber-300 bg-amber-100 px-4 py-3 text-sm font-semibold tracking-wide text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200"
        >
          <FlaskConical className="h-4 w-4" aria-hidden /> {BILLING_TEXT.testMode}
        </p>
        <div className="p-8">
          <h1 className="text-2xl font-bold tracking-tight">{BILLING_TEXT.testCheckoutTitle}</h1>
          <div className="mt-6" aria-live="polite">
            {state.kind === "loading" && (
              <p role="status" className="flex items-center gap-2 text-slate-600 dark:text-slate-400">
                <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Loading checkout…
              </p>
            )}
            {state.kind === "missing" && (
              <div className="space-y-4">
                <Alert kind="error">{BILLING_TEXT.checkoutNotFound}</Alert>
                <BackLink />
              </div>
            )}
            {state.kind === "error" && (
              <div className="space-y-4">
                <Alert kind="error">{state.message}</Alert>
                <BackLink />
              </div>
            )}
            {state.kind === "ready" && <Checkout checkout={state.checkout} busy={busy} error={error} onFinish={(a) => void finish(a)} />}
          </div>
        </div>
      </div>
    </section>
  );
}

function Checkout({ checkout, busy, error, onFinish }: { checkout: TestCheckout; busy: "confirm" | "cancel" | null; error: string | null; onFinish: (a: "confirm" | "cancel") => void }) {
  const { plan } = checkout;
  return (
    <div className="space-y-6">
      <div className="rounded-xl border border-slate-200 p-5 dark:border-slate-800">
        <div className="flex items-baseline justify-between gap-4">
          <h2 className="text-lg font-semibold">{plan.name}</h2>
          <p className="text-2xl font-bold tracking-tight" data-testid="checkout-price">
            {priceLabel(plan)}
          </p>
        </div>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{plan.description}</p>
        <ul className="mt-4 space-y-2 text-sm">
          {plan.features.map((f) => (
            <li key={f} className="flex items-start gap-2">
              <Check className="mt-0.5 h-4 w-4 shrink-0 text-emerald-500" aria-hidden /> {f}
            </li>
          ))}
        </ul>
      </div>
      {error && <Alert kind="error">{error}</Alert>}
      {checkout.status === "open" ? (
        <div className="grid gap-3 sm:grid-cols-2">
          <Button variant="secondary" size="lg" block disabled={busy !== null} onClick={() => onFinish("cancel")}>
            {busy === "cancel" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {BILLING_TEXT.cancelCheckout}
          </Button>
          <Button size="lg" block disabled={busy !== null} onClick={() => onFinish("confirm")}>
            {busy === "confirm" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {BILLING_TEXT.confirmPayment}
          </Button>
        </div>
      ) : (
        <div className="space-y-4">
          <Alert kind="error">{BILLING_TEXT.checkoutClosed}</Alert>
          <BackLink />
        </div>
      )}
    </div>
  );
}

function BackLink() {
  return (
    <Link to="/subscription" className={`inline-flex items-center gap-1 ${linkClass}`}>
      <ArrowLeft className="h-4 w-4" aria-hidden /> Back to {BILLING_TEXT.title}
    </Link>
  );
}
