import { Loader2, Sparkles } from "~/web/components/icons";
import { PLANS, type CurrentSubscription } from "../../../shared/billing";
import { ORG_TEXT } from "../../../shared/orgs";
import { Enhanced, useActionForm } from "../../lib/forms";
import { ConfirmButton } from "../ConfirmButton";
import { Alert, Button, formLegend, formSection } from "../ui";

// An organisation's plan on its page (docs/product.md#organisations): what it is on, and for its
// owners Upgrade to Pro (the checkout, then back here) or Cancel Pro at the period's end. Both
// post to the page's action (the checkout, perhaps Stripe's, opens as a page of its own); the API
// refuses anyone else anyway.

export function OrgPlan({ current, owner }: { current: CurrentSubscription | null; owner: boolean }) {
  const { fetcher, answer } = useActionForm<{ form: string; error?: string; message?: string }>("plan", { reload: true });
  if (!current) return null;
  const plan = PLANS[current.plan]?.name ?? current.plan;
  const busy = fetcher.state !== "idle" ? String(fetcher.formData?.get("intent") ?? "") : null;
  return (
    <div className={`${formSection} mt-8`} data-testid="org-plan">
      <h2 className={formLegend}>{ORG_TEXT.planTitle}</h2>
      <p className="text-sm">
        {ORG_TEXT.planIs(plan)} <span className="text-slate-600 dark:text-slate-400">{ORG_TEXT.planHint}</span>
      </p>
      {answer?.error && <Alert kind="error">{answer.error}</Alert>}
      {answer?.message && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {answer.message}
        </p>
      )}
      {owner && current.plan === "free" && (
        <fetcher.Form method="post">
          <Enhanced />
          <input type="hidden" name="intent" value="plan-checkout" />
          <Button type="submit" disabled={busy !== null}>
            {busy === "plan-checkout" ? (
              <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
            ) : (
              <Sparkles className="h-4 w-4" aria-hidden />
            )}
            {busy === "plan-checkout" ? ORG_TEXT.upgrading : ORG_TEXT.upgrade}
          </Button>
        </fetcher.Form>
      )}
      {owner && current.canCancel && (
        <fetcher.Form method="post">
          <Enhanced />
          <input type="hidden" name="intent" value="plan-cancel" />
          <ConfirmButton
            label={ORG_TEXT.cancelPlan}
            busy={busy === "plan-cancel"}
            busyLabel={<Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            disabled={busy !== null}
            title={ORG_TEXT.cancelPlanTitle}
            description={ORG_TEXT.cancelPlanText}
            confirmLabel={ORG_TEXT.cancelPlan}
            cancelLabel={ORG_TEXT.cancel}
          />
        </fetcher.Form>
      )}
    </div>
  );
}
