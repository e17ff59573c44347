import { CreditCard } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { toast, Toaster } from "sonner";
import { BILLING_TEXT, PLAN_LIST, type CurrentSubscription as Current, type SubscriptionView } from "../../shared/billing";
import { CurrentSubscription } from "../components/CurrentSubscription";
import { PlanCard } from "../components/PlanCard";
import { buttonClass } from "../components/ui";
import { api } from "../lib/api";
import { useTheme } from "../lib/theme";
import type { Route } from "./+types/subscription";

// The Subscription page (docs/product.md#subscription-page; a refresh 1 s after a checkout).
// The data comes from /api/subscriptions/current in the browser; the server decides what the
// provider's status means (the plan in force, whether Cancel is offered), the page shows it.

export function meta({ data }: Route.MetaArgs) {
  return [{ title: `Subscription - ${data?.site ?? "Switchboard"}` }, { name: "robots", content: "noindex" }];
}

export function loader({ context }: Route.LoaderArgs) {
  return { site: context.config.SITE_NAME, signedIn: context.viewer !== null };
}

const CHECKOUT_REFRESH_MS = 1000;
const TIMEOUT_MS = 20_000;

type Loaded = { ok: true; current: Current } | { ok: false; message: string };

async function fetchSubscription(): Promise<Loaded> {
  const r = await api<Current>("/api/subscriptions/current", { timeoutMs: TIMEOUT_MS });
  if (r.ok && r.data?.subscription) return { ok: true, current: r.data };
  if (r.status === 401) return { ok: false, message: BILLING_TEXT.authRequired };
  return { ok: false, message: (!r.ok && r.error) || BILLING_TEXT.loadFailed };
}

export default function Subscription({ loaderData }: Route.ComponentProps) {
  const theme = useTheme();
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <Toaster theme={theme} richColors closeButton position="top-center" />
      {loaderData.signedIn ? (
        <SubscriptionPlans />
      ) : (
        <div className="mx-auto max-w-md rounded-2xl border border-slate-200 bg-white p-8 text-center shadow-sm dark:border-slate-800 dark:bg-slate-900/60">
          <CreditCard className="mx-auto h-10 w-10 text-indigo-500" aria-hidden />
          <p className="mt-4 text-lg font-medium">{BILLING_TEXT.mustLogin}</p>
          <Link to="/login?redirect=subscription" className={`mt-6 ${buttonClass("primary", "md")}`}>
            {BILLING_TEXT.logIn}
          </Link>
        </div>
      )}
    </section>
  );
}

function SubscriptionPlans() {
  const [current, setCurrent] = useState<Current | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busyPlan, setBusyPlan] = useState<string | null>(null);
  const [params, setParams] = useSearchParams();
  const arrival = useRef(false);

  const load = useCallback(async () => {
    setLoading(true);
    const r = await fetchSubscription();
    setLoading(false);
    if (r.ok) {
      setCurrent(r.current);
      setLoadError(null);
    } else {
      setLoadError(r.message);
    }
  }, []);

  useEffect(() => {
    const first = setTimeout(() => void load(), 0);
    return () => clearTimeout(first);
  }, [load]);

  // Back from the checkout: say how it went once, and take the flag out of the address.
  useEffect(() => {
    if (arrival.current) return;
    const success = params.get("checkout_success") === "true";
    const canceled = params.get("checkout_canceled") === "true";
    if (!success && !canceled) return;
    arrival.current = true;
    if (success) {
      toast.success(BILLING_TEXT.checkoutSuccess);
      setTimeout(() => void load(), CHECKOUT_REFRESH_MS);
    } else {
      toast.info(BILLING_TEXT.checkoutCanceled);
    }
    const next = new URLSearchParams(params);
    next.delete("checkout_success");
    next.delete("checkout_canceled");
    setParams(next, { replace: true, preventScrollReset: true });
  }, [params, setParams, load]);

  async function choose(plan: SubscriptionView["plan"]) {
    if (plan.price_monthly === 0) {
      // Choosing Free makes no call; it says so and refreshes (docs/product.md#subscription-page).
      toast.success(BILLING_TEXT.switchedToFree);
      void load();
      return;
    }
    setBusyPlan(plan.id);
    const r = await api<{ success?: boolean; url?: string }>("/api/subscriptions/checkout", { body: { plan: plan.id, period: "monthly" }, timeoutMs: TIMEOUT_MS });
    if (r.ok && r.data?.success && r.data.url) {
      // The busy state stays while the browser leaves for the checkout.
      window.location.assign(r.data.url);
      return;
    }
    setBusyPlan(null);
    if (r.ok) toast.error(BILLING_TEXT.checkoutFailed);
    else toast.error(r.status === 401 ? BILLING_TEXT.authRequired : r.error || BILLING_TEXT.processFailed);
  }

  return (
    <>
      <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
        <CreditCard className="h-7 w-7 text-indigo-500" aria-hidden /> {BILLING_TEXT.title}
      </h1>
      <CurrentSubscription current={current} loading={loading} error={loadError} reload={load} />
      <section className="mt-10" aria-labelledby="available-plans">
        <h2 id="available-plans" className="text-xl font-semibold">
          {BILLING_TEXT.availablePlans}
        </h2>
        <div className="mt-4 grid gap-6 md:grid-cols-2">
          {PLAN_LIST.map((plan) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              current={current?.plan === plan.id}
              busy={busyPlan === plan.id}
              disabled={busyPlan !== null || current === null}
              onChoose={() => void choose(plan)}
            />
          ))}
        </div>
      </section>
    </>
  );
}
