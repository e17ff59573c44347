import { Loader2, RefreshCw, TriangleAlert } from "~/web/components/icons";
import { useState } from "react";
import type { FetcherWithComponents } from "react-router";
import { BILLING_TEXT, type CurrentSubscription as Current } from "../../shared/billing";
import { statusLabel } from "../../shared/deployments";
import { longDate } from "../lib/dates";
import { Enhanced, useHydrated } from "../lib/forms";
import { ConfirmDialog } from "./ConfirmDialog";
import { Alert, Button, buttonClass } from "./ui";

const TONE: Record<Current["standing"], string> = {
  free: "",
  good: "text-emerald-700 dark:text-emerald-400",
  attention: "text-amber-700 dark:text-amber-400",
};

/**
 * The Subscription page's Current Subscription box: plan, status and period end as the server
 * states them, Refresh, and Cancel Subscription behind a confirmation when the server allows it.
 */
export function CurrentSubscription(p: {
  current: Current | null;
  loading: boolean;
  error: string | null;
  reload: () => Promise<void>;
  /** the page's form fetcher: Cancel posts to its action */
  fetcher: FetcherWithComponents<unknown>;
  canceling: boolean;
}) {
  const { current, loading, error, reload, fetcher, canceling } = p;
  const hydrated = useHydrated();
  const [confirming, setConfirming] = useState(false);
  // The dialog closes once the answer is in (the page says how it went).
  const [wasCanceling, setWasCanceling] = useState(false);
  if (canceling !== wasCanceling) {
    setWasCanceling(canceling);
    if (!canceling) setConfirming(false);
  }

  const sub = current?.subscription;
  const periodEnd = sub?.currentPeriodEnd ? longDate(sub.currentPeriodEnd) : null;

  return (
    <section
      className="mt-8 rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900/60"
      aria-labelledby="current-subscription"
      aria-busy={loading}
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="current-subscription" className="text-xl font-semibold">
          {BILLING_TEXT.currentSubscription}
        </h2>
        {hydrated ? (
          <Button variant="secondary" size="sm" onClick={() => void reload()} disabled={loading}>
            <RefreshCw className={`h-4 w-4 ${loading ? "animate-spin" : ""}`} aria-hidden /> {BILLING_TEXT.refresh}
          </Button>
        ) : (
          // Without scripts, refreshing is loading the page again.
          <a href="/subscription" className={buttonClass("secondary", "sm")}>
            <RefreshCw className="h-4 w-4" aria-hidden /> {BILLING_TEXT.refresh}
          </a>
        )}
      </div>

      {error && (
        <div className="mt-4">
          <Alert kind="error">{error}</Alert>
        </div>
      )}

      {!current || !sub ? (
        loading && (
          <p role="status" className="mt-4 flex items-center gap-2 text-slate-600 dark:text-slate-400">
            <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Loading subscription…
          </p>
        )
      ) : (
        <>
          <dl className="mt-4 grid gap-4 sm:grid-cols-3" data-testid="current-subscription">
            <div>
              <dt className="text-sm text-slate-600 dark:text-slate-400">Plan</dt>
              <dd className="mt-1 font-semibold" data-testid="current-plan">
                {sub.plan.name}
              </dd>
            </div>
            <div>
              <dt className="text-sm text-slate-600 dark:text-slate-400">Status</dt>
              <dd className="mt-1 font-semibold" data-testid="current-status">
                <span className={`inline-flex items-center gap-1.5 ${TONE[current.standing]}`}>{statusLabel(sub.status)}</span>
              </dd>
            </div>
            <div>
              <dt className="text-sm text-slate-600 dark:text-slate-400">Current Period Ends</dt>
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

          {current.canCancel && (
            <fetcher.Form method="post" className="mt-5">
              <Enhanced />
              <ConfirmDialog
                open={confirming}
                onOpenChange={setConfirming}
                trigger={
                  <Button variant="dangerOutline" className="text-sm">
                    {BILLING_TEXT.cancel}
                  </Button>
                }
                title={BILLING_TEXT.cancel}
                description={BILLING_TEXT.confirmCancel}
                confirmLabel="Confirm"
                cancelLabel="Keep subscription"
                onConfirm={() => void fetcher.submit({ intent: "cancel", _enhanced: "1" }, { method: "post" })}
                busy={canceling}
                noScript={{
                  label: BILLING_TEXT.cancel,
                  className: `${buttonClass("dangerOutline")} text-sm`,
                  submit: (
                    <Button type="submit" name="intent" value="cancel" variant="danger" size="sm">
                      Confirm
                    </Button>
                  ),
                }}
              />
            </fetcher.Form>
          )}
        </>
      )}
    </section>
  );
}
