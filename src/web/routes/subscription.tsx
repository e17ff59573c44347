import { Check, CreditCard, Loader2, RefreshCw, TriangleAlert } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { toast, Toaster } from "sonner";
import { BILLING_TEXT, PLAN_LIST, priceLabel, type ProviderStatusView, type SubscriptionView } from "../../shared/billing";
import { actionButton, Alert, secondaryButton } from "../components/ui";
import { api } from "../lib/api";
import { longDate } from "../lib/dates";
import { useTheme } from "../lib/theme";
import { statusLabel } from "../../shared/deployments";
import type { Route } from "./+types/subscription";

// Spec sections 2 (Subscription), 4 (Subscription, Subscription load), 8 and 9 (refresh 1 s after a
// checkout). The data comes from /api/subscriptions/* in the browser, as the spec describes.

export function meta({ data }: Route.MetaArgs) {
  return [{ title: `Subscription - ${data?.site ?? "Switchboard"}` }, { name: "robots", content: "noindex" }];
}

export function loader({ context }: Route.LoaderArgs) {
  return { site: context.config.SITE_NAME, signedIn: context.viewer !== null };
}

const CHECKOUT_REFRESH_MS = 1000;
const TIMEOUT_MS = 20_000;

type Loaded = { ok: true; sub: SubscriptionView } | { ok: false; message: string };

const proPlan = PLAN_LIST.find((p) => p.id === "pro")!;

/** Provider status first; an active one counts as Pro. Otherwise, or on failure, the stored subscription. */
async function fetchSubscription(): Promise<Loaded> {
  const provider = await api<{ success: boolean; subscription: ProviderStatusView | null }>("/api/subscriptions/stripe-status", { timeoutMs: TIMEOUT_MS });
  if (provider.ok && provider.data?.success && provider.data.subscription?.status === "active") {
    const s = provider.data.subscription;
    return {
      ok: true,
      sub: { status: s.status, plan: proPlan, period: "month", currentPeriodEnd: s.currentPeriodEnd, cancelAtPeriodEnd: s.cancelAtPeriodEnd },
    };
  }
  const current = await api<{ success: boolean; subscription: SubscriptionView | null }>("/api/subscriptions/current", { timeoutMs: TIMEOUT_MS });
  if (current.ok && current.data?.subscription) return { ok: true, sub: current.data.subscription };
  if (current.status === 401) return { ok: false, message: BILLING_TEXT.authRequired };
  return { ok: false, message: (!current.ok && current.error) || BILLING_TEXT.loadFailed };
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
          <Link to="/login?redirect=subscription" className={`mt-6 ${actionButton}`}>
            {BILLING_TEXT.logIn}
          </Link>
        </div>
      )}
    </section>
  );
}

function SubscriptionPlans() {
  const [sub, setSub] = useState<SubscriptionView | null>(null);
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
      setSub(r.sub);
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
      // Spec section 4: choosing Free makes no call; it says so and refreshes.
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
      <CurrentSubscription sub={sub} loading={loading} error={loadError} reload={load} />
      <section className="mt-10" aria-labelledby="available-plans">
        <h2 id="available-plans" className="text-xl font-semibold">
          {BILLING_TEXT.availablePlans}
        </h2>
        <div className="mt-4 grid gap-6 md:grid-cols-2">
          {PLAN_LIST.map((plan) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              current={sub?.plan.id === plan.id}
              busy={busyPlan === plan.id}
              disabled={busyPlan !== null || sub === null}
              onChoose={() => void choose(plan)}
            />
          ))}
        </div>
      </section>
    </>
  );
}

function CurrentSubscription({ sub, loading, error, reload }: { sub: SubscriptionView | null; loading: boolean; error: string | null; reload: () => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [canceling, setCanceling] = useState(false);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const dialogId = useId();

  useEffect(() => {
    if (confirming) keepButton.current?.focus();
  }, [confirming]);

  function closeConfirm() {
    setConfirming(false);
    setTimeout(() => cancelButton.current?.focus(), 0);
  }

  async function cancel() {
    setCanceling(true);
    const r = await api<{ success?: boolean; message?: string }>("/api/subscriptions/cancel", { body: {}, timeoutMs: TIMEOUT_MS });
    setCanceling(false);
    setConfirming(false);
    if (r.ok) toast.success(r.data?.message || BILLING_TEXT.canceled);
    else toast.error(r.status === 401 ? BILLING_TEXT.authRequired : r.error || BILLING_TEXT.cancelFailed);
    await reload();
  }

  const periodEnd = sub?.currentPeriodEnd ? longDate(sub.currentPeriodEnd) : null;
  const canCancel = sub !== null && !sub.cancelAtPeriodEnd && sub.status !== "free";

  return (
    <section className="mt-8 rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900/60" aria-labelledby="current-subscription" aria-busy={loading}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="current-subscription" className="text-xl font-semibold">
          {BILLING_TEXT.currentSubscription}
        </h2>
        <button
          type="button"
          onClick={() => void reload()}
          disabled={loading}
          className="inline-flex items-center gap-2 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:cursor-not-allowed disabled:opacity-60 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
        >
          <RefreshCw className={`h-4 w-4 ${loading ? "animate-spin" : ""}`} aria-hidden /> {BILLING_TEXT.refresh}
        </button>
      </div>

      {error && (
        <div className="mt-4">
          <Alert kind="error">{error}</Alert>
        </div>
      )}

      {sub === null ? (
        loading && (
          <p role="status" className="mt-4 flex items-center gap-2 text-slate-600 dark:text-slate-400">
            <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Loading subscription…
          </p>
        )
      ) : (
        <>
          <dl className="mt-4 grid gap-4 sm:grid-cols-3" data-testid="current-subscription">
            <div>
              <dt className="text-sm text-slate-500 dark:text-slate-400">Plan</dt>
              <dd className="mt-1 font-semibold" data-testid="current-plan">
                {sub.plan.name}
              </dd>
            </div>
            <div>
              <dt className="text-sm text-slate-500 dark:text-slate-400">Status</dt>
              <dd className="mt-1 font-semibold" data-testid="current-status">
                <span
                  className={`inline-flex items-center gap-1.5 ${sub.status === "active" || sub.status === "trialing" ? "text-emerald-700 dark:text-emerald-400" : sub.status === "free" ? "" : "text-amber-700 dark:text-amber-400"}`}
                >
                  {statusLabel(sub.status)}
                </span>
              </dd>
            </div>
            <div>
              <dt className="text-sm text-slate-500 dark:text-slate-400">Current Period Ends</dt>
              <dd className="mt-1 font-semibold" data-testid="current-period-end">
                {periodEnd ?? "—"}
              </dd>
            </div>
          </dl>

          {sub.cancelAtPeriodEnd && periodEnd && (
            <p className="mt-4 flex items-start gap-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200">
              <TriangleAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden /> {BILLING_TEXT.endsOn(periodEnd)}
            </p>
          )}

          {canCancel && !confirming && (
            <button
              ref={cancelButton}
              type="button"
              onClick={() => setConfirming(true)}
              className="mt-5 inline-flex items-center gap-2 rounded-md border border-red-300 px-4 py-2 text-sm font-semibold text-red-700 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-500 dark:border-red-900 dark:text-red-300 dark:hover:bg-red-950/40"
            >
              {BILLING_TEXT.cancel}
            </button>
          )}

          {canCancel && confirming && (
            <div
              role="alertdialog"
              aria-modal="false"
              aria-labelledby={`${dialogId}-title`}
              aria-describedby={`${dialogId}-text`}
              onKeyDown={(e) => {
                if (e.key === "Escape" && !canceling) closeConfirm();
              }}
              className="mt-5 rounded-lg border border-red-300 bg-red-50 p-4 dark:border-red-900 dark:bg-red-950/40"
            >
              <p id={`${dialogId}-title`} className="font-semibold text-red-800 dark:text-red-200">
                {BILLING_TEXT.cancel}
              </p>
              <p id={`${dialogId}-text`} className="mt-1 text-sm text-red-900 dark:text-red-200">
                {BILLING_TEXT.confirmCancel}
              </p>
              <div className="mt-3 flex flex-wrap gap-3">
                <button
                  type="button"
                  onClick={() => void cancel()}
                  disabled={canceling}
                  className="inline-flex items-center gap-2 rounded-md bg-red-600 px-4 py-2 text-sm font-semibold text-white hover:bg-red-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-500 disabled:cursor-not-allowed disabled:opacity-60"
                >
                  {canceling && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                  Confirm
                </button>
                <button
                  ref={keepButton}
                  type="button"
                  onClick={closeConfirm}
                  disabled={canceling}
                  className="rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:opacity-60 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
                >
                  Keep subscription
                </button>
              </div>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function PlanCard(p: {
  plan: SubscriptionView["plan"];
  current: boolean;
  busy: boolean;
  disabled: boolean;
  onChoose: () => void;
}) {
  const { plan } = p;
  const id = `plan-${plan.id}`;
  const label = p.busy ? BILLING_TEXT.processing : p.current ? BILLING_TEXT.currentPlan : plan.price_monthly === 0 ? BILLING_TEXT.useFree : BILLING_TEXT.subscribeTo(plan.name);
  const featured = plan.price_monthly > 0;
  return (
    <article
      aria-labelledby={id}
      className={`flex flex-col rounded-xl border p-6 shadow-sm ${
        p.current ? "border-indigo-500 ring-1 ring-indigo-500 dark:border-indigo-400 dark:ring-indigo-400" : "border-slate-200 dark:border-slate-800"
      } bg-white dark:bg-slate-900/60`}
    >
      <div className="flex items-center justify-between gap-2">
        <h3 id={id} className="text-lg font-semibold">
          {plan.name}
        </h3>
        {p.current && <span className="rounded-full bg-indigo-100 px-2.5 py-0.5 text-xs font-semibold text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300">Current</span>}
      </div>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{plan.description}</p>
      <p className="mt-4 text-3xl font-bold tracking-tight">{priceLabel(plan)}</p>
      <ul className="mt-4 flex-1 space-y-2 text-sm">
        {plan.features.map((f) => (
          <li key={f} className="flex items-start gap-2">
            <Check className="mt-0.5 h-4 w-4 shrink-0 text-emerald-500" aria-hidden /> {f}
          </li>
        ))}
      </ul>
      <button
        type="button"
        onClick={p.onChoose}
        disabled={p.current || p.disabled}
        className={`mt-6 ${
          featured && !p.current
            ? `${actionButton} w-full`
            : secondaryButton
        }`}
      >
        {p.busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {label}
      </button>
    </article>
  );
}
