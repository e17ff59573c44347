import { Check, Loader2 } from "~/web/components/icons";
import type { FetcherWithComponents } from "react-router";
import { BILLING_TEXT, priceLabel, type SubscriptionView } from "../../shared/billing";
import { Enhanced } from "../lib/forms";
import { Button } from "./ui";

/** One plan on the Subscription page: its price and features, and the button that chooses it (a post to the page's action). */
export function PlanCard(p: {
  plan: SubscriptionView["plan"];
  current: boolean;
  busy: boolean;
  disabled: boolean;
  Form: FetcherWithComponents<unknown>["Form"];
}) {
  const { plan } = p;
  const id = `plan-${plan.id}`;
  const label = p.busy
    ? BILLING_TEXT.processing
    : p.current
      ? BILLING_TEXT.currentPlan
      : plan.price_monthly === 0
        ? BILLING_TEXT.useFree
        : BILLING_TEXT.subscribeTo(plan.name);
  const featured = plan.price_monthly > 0 && !p.current;
  return (
    <article
      aria-labelledby={id}
      className={`flex flex-col rounded-xl border p-6 shadow-sm ${
        p.current
          ? "border-indigo-500 ring-1 ring-indigo-500 dark:border-indigo-400 dark:ring-indigo-400"
          : "border-slate-200 dark:border-slate-800"
      } bg-white dark:bg-slate-900/60`}
    >
      <div className="flex items-center justify-between gap-2">
        <h3 id={id} className="text-lg font-semibold">
          {plan.name}
        </h3>
        {p.current && (
          <span className="rounded-full bg-indigo-100 px-2.5 py-0.5 text-xs font-semibold text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300">
            Current
          </span>
        )}
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
      <p.Form method="post" className="mt-6">
        <Enhanced />
        <input type="hidden" name="intent" value="plan" />
        <input type="hidden" name="plan" value={plan.id} />
        <Button
          type="submit"
          variant={featured ? "primary" : "secondary"}
          size={featured ? "md" : "lg"}
          block
          disabled={p.current || p.disabled}
        >
          {p.busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {label}
        </Button>
      </p.Form>
    </article>
  );
}
