import { ArrowLeft, Check, FlaskConical, Loader2 } from "~/web/components/icons";
import { Link, redirect } from "react-router";
import { BILLING_TEXT, priceLabel, type SubscriptionView } from "../../shared/billing";
import { Alert, Button, linkClass } from "../components/ui";
import { field, finish } from "../lib/actions.server";
import { Enhanced, useActionForm } from "../lib/forms";
import type { Route } from "./+types/test-checkout";

// docs/product.md#checkout: without Stripe keys this page of the app stands in for the payment
// provider's checkout. It confirms or cancels and returns to /subscription like Stripe would.

export function meta({ data }: Route.MetaArgs) {
  return [{ title: `${BILLING_TEXT.testCheckoutTitle} - ${data?.site ?? "Switchboard"}` }, { name: "robots", content: "noindex" }];
}

export async function loader({ context, params }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=/subscription/test-checkout/${encodeURIComponent(params.id)}`);
  return { site: context.config.SITE_NAME, state: await checkoutState(context, params.id) };
}

interface TestCheckout {
  id: string;
  status: "open" | "complete" | "canceled" | "expired";
  plan: SubscriptionView["plan"];
}

type State = { kind: "missing" } | { kind: "error"; message: string } | { kind: "ready"; checkout: TestCheckout };

async function checkoutState(context: Route.LoaderArgs["context"], id: string): Promise<State> {
  const r = await context.api<TestCheckout>("GET", `/api/subscriptions/test-checkout/${encodeURIComponent(id)}`);
  if (r.ok && r.data) return { kind: "ready", checkout: r.data };
  if (r.status === 404) return { kind: "missing" };
  return { kind: "error", message: r.status === 401 ? BILLING_TEXT.authRequired : (!r.ok && r.error) || BILLING_TEXT.loadFailed };
}

// Confirm or Cancel: the checkout answers where to go back to (/subscription with its flag).
export async function action({ context, params, request }: Route.ActionArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=/subscription/test-checkout/${encodeURIComponent(params.id)}`);
  const form = await request.formData();
  const step = field(form, "intent") === "confirm" ? "confirm" : "cancel";
  const r = await context.api<{ success?: boolean; url?: string }>(
    "POST",
    `/api/subscriptions/test-checkout/${encodeURIComponent(params.id)}/${step}`,
    {},
  );
  if (r.ok && typeof r.data?.url === "string" && r.data.url.startsWith("/")) return finish(form, r.data.url);
  // It may have been completed or canceled elsewhere: the page shows what it is now.
  return { error: r.status === 401 ? BILLING_TEXT.authRequired : (!r.ok && r.error) || BILLING_TEXT.processFailed };
}

export default function TestCheckoutPage({ loaderData }: Route.ComponentProps) {
  const { state } = loaderData;
  const { fetcher, answer, busy: posting } = useActionForm<{ error?: string; redirectTo?: string }>("checkout", { reload: true });
  const busy = posting ? (fetcher.formData?.get("intent") === "confirm" ? "confirm" : "cancel") : null;
  const error = answer?.error ?? null;

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
            {state.kind === "ready" && <Checkout checkout={state.checkout} busy={busy} error={error} Form={fetcher.Form} />}
          </div>
        </div>
      </div>
    </section>
  );
}

function Checkout({
  checkout,
  busy,
  error,
  Form,
}: {
  checkout: TestCheckout;
  busy: "confirm" | "cancel" | null;
  error: string | null;
  Form: ReturnType<typeof useActionForm>["fetcher"]["Form"];
}) {
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
        <Form method="post" className="grid gap-3 sm:grid-cols-2">
          <Enhanced />
          <Button type="submit" name="intent" value="cancel" variant="secondary" size="lg" block disabled={busy !== null}>
            {busy === "cancel" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {BILLING_TEXT.cancelCheckout}
          </Button>
          <Button type="submit" name="intent" value="confirm" size="lg" block disabled={busy !== null}>
            {busy === "confirm" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {BILLING_TEXT.confirmPayment}
          </Button>
        </Form>
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
