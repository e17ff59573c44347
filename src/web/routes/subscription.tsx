import { CreditCard } from "~/web/components/icons";
import { useCallback, useEffect, useRef, useState } from "react";
import { Link, redirect, useSearchParams } from "react-router";
import { toast, Toaster } from "sonner";
import { BILLING_TEXT, PLAN_LIST, type CurrentSubscription as Current } from "../../shared/billing";
import { CurrentSubscription } from "../components/CurrentSubscription";
import { PlanCard } from "../components/PlanCard";
import { Alert, buttonClass } from "../components/ui";
import { field, finish } from "../lib/actions.server";
import { api, type ApiResult } from "../lib/api";
import { useActionForm, useHydrated } from "../lib/forms";
import { useTheme } from "../lib/theme";
import type { Route } from "./+types/subscription";

// The Subscription page (docs/product.md#subscription-page; a refresh 1 s after a checkout).
// The server decides what the provider's status means (the plan in force, whether Cancel is
// offered); the page shows it. The loader reads it first, the page's Refresh again; choosing a
// plan and cancelling post to the action, so all of it works without JavaScript.

export function meta({ data }: Route.MetaArgs) {
  return [{ title: `Subscription - ${data?.site ?? "Switchboard"}` }, { name: "robots", content: "noindex" }];
}

const CHECKOUT_REFRESH_MS = 1000;
const TIMEOUT_MS = 20_000;

type Loaded = { ok: true; current: Current } | { ok: false; message: string };

function loaded(r: ApiResult<Current>): Loaded {
  if (r.ok && r.data?.subscription) return { ok: true, current: r.data };
  if (r.status === 401) return { ok: false, message: BILLING_TEXT.authRequired };
  return { ok: false, message: (!r.ok && r.error) || BILLING_TEXT.loadFailed };
}

export async function loader({ context }: Route.LoaderArgs) {
  const site = context.config.SITE_NAME;
  if (!context.viewer) return { site, signedIn: false as const, first: null };
  return { site, signedIn: true as const, first: loaded(await context.api<Current>("GET", "/api/subscriptions/current")) };
}

export type SubscriptionAnswer = { kind: "success" | "error"; text: string; redirectTo?: string };

export async function action({ context, request }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=subscription");
  const form = await request.formData();
  const intent = field(form, "intent");
  if (intent === "cancel") {
    const r = await context.api<{ message?: string }>("POST", "/api/subscriptions/cancel", {});
    if (r.ok) return { kind: "success", text: r.data?.message || BILLING_TEXT.canceled } satisfies SubscriptionAnswer;
    return {
      kind: "error",
      text: r.status === 401 ? BILLING_TEXT.authRequired : r.error || BILLING_TEXT.cancelFailed,
    } satisfies SubscriptionAnswer;
  }
  const plan = PLAN_LIST.find((p) => p.id === field(form, "plan"));
  if (!plan) return { kind: "error", text: BILLING_TEXT.processFailed } satisfies SubscriptionAnswer;
  // Choosing Free makes no call; it says so and the page reads the plan again (docs/product.md#subscription-page).
  if (plan.price_monthly === 0) return { kind: "success", text: BILLING_TEXT.switchedToFree } satisfies SubscriptionAnswer;
  const r = await context.api<{ success?: boolean; url?: string }>("POST", "/api/subscriptions/checkout", {
    plan: plan.id,
    period: "monthly",
  });
  // The checkout (the built-in test page, or Stripe's) takes it from here.
  if (r.ok && r.data?.success && typeof r.data.url === "string" && /^(https?:\/\/|\/[^/\\])/.test(r.data.url))
    return finish(form, r.data.url);
  return {
    kind: "error",
    text: r.ok ? BILLING_TEXT.checkoutFailed : r.status === 401 ? BILLING_TEXT.authRequired : r.error || BILLING_TEXT.processFailed,
  } satisfies SubscriptionAnswer;
}

export default function Subscription({ loaderData }: Route.ComponentProps) {
  const theme = useTheme();
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <Toaster theme={theme} richColors closeButton position="top-center" />
      {loaderData.signedIn ? (
        <SubscriptionPlans first={loaderData.first} />
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

function SubscriptionPlans({ first }: { first: Loaded }) {
  const hydrated = useHydrated();
  const [current, setCurrent] = useState<Current | null>(first.ok ? first.current : null);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(first.ok ? null : first.message);
  const [params, setParams] = useSearchParams();
  const arrival = useRef(false);
  const { fetcher, answer, busy } = useActionForm<SubscriptionAnswer>("subscription", { reload: true });
  const busyPlan = busy && fetcher.formData?.get("intent") === "plan" ? String(fetcher.formData.get("plan")) : null;

  const load = useCallback(async () => {
    setLoading(true);
    const r = loaded(await api<Current>("/api/subscriptions/current", { timeoutMs: TIMEOUT_MS }));
    setLoading(false);
    if (r.ok) {
      setCurrent(r.current);
      setLoadError(null);
    } else {
      setLoadError(r.message);
    }
  }, []);

  // The loader read it again (after any post): that is the plan now.
  const [seen, setSeen] = useState(first);
  if (seen !== first) {
    setSeen(first);
    if (first.ok) {
      setCurrent(first.current);
      setLoadError(null);
    }
  }

  // An answer to a choice or a cancel: said in a toast, and the plan is read again.
  const told = useRef<SubscriptionAnswer | undefined>(undefined);
  useEffect(() => {
    const a = fetcher.data;
    if (!a || told.current === a || a.redirectTo) return;
    told.current = a;
    if (a.kind === "success") toast.success(a.text);
    else toast.error(a.text);
    void load();
  }, [fetcher.data, load]);

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

  // Without JavaScript there are no toasts: the same words show on the page.
  const inline = !hydrated
    ? answer && !answer.redirectTo
      ? answer
      : params.get("checkout_success") === "true"
        ? { kind: "success" as const, text: BILLING_TEXT.checkoutSuccess }
        : params.get("checkout_canceled") === "true"
          ? { kind: "success" as const, text: BILLING_TEXT.checkoutCanceled }
          : null
    : null;

  return (
    <>
      <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
        <CreditCard className="h-7 w-7 text-indigo-500" aria-hidden /> {BILLING_TEXT.title}
      </h1>
      {inline && (
        <div className="mt-6">
          <Alert kind={inline.kind}>{inline.text}</Alert>
        </div>
      )}
      <CurrentSubscription
        current={current}
        loading={loading}
        error={loadError}
        reload={load}
        fetcher={fetcher}
        canceling={busy && fetcher.formData?.get("intent") === "cancel"}
      />
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
              Form={fetcher.Form}
            />
          ))}
        </div>
      </section>
    </>
  );
}
