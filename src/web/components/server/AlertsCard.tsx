import { BellRing, Loader2, Send } from "~/web/components/icons";
import { Link } from "react-router";
import { ALERT_EMAIL_LABEL, ALERT_KIND_LABEL, ALERTS_TEXT, type AlertsPage } from "../../../shared/alerts";
import type { DeployAnswer } from "../../lib/deploy-types";
import { dateTime } from "../../lib/dates";
import { Enhanced, useActionForm, useLatest } from "../../lib/forms";
import { Alert, Button, inputClass } from "../ui";

// Monitoring & alerts on a deployment's page (its owner only; docs/observability.md#alerts). Pro:
// the alert settings, a test alert and the latest alerts. Free: what Pro adds. Both forms post to
// the page's action (lib/deploy.server.ts), so they work without JavaScript.

interface Props {
  deploymentId: string;
  /** what the page loaded (null: it could not) */
  initial: AlertsPage | null;
  className: string;
}

export function AlertsCard({ deploymentId, initial, className }: Props) {
  const settings = useActionForm<DeployAnswer>("alerts");
  const test = useActionForm<DeployAnswer>("alert-test");
  const page = useLatest(initial, [settings.fetcher.data, test.fetcher.data], (d) => d.alerts);

  const id = `alerts-${deploymentId}`;
  return (
    <section className={className} aria-labelledby={`${id}-title`} data-testid="alerts">
      <h2 id={`${id}-title`} className="flex items-center gap-2 text-lg font-semibold">
        <BellRing className="h-5 w-5 text-indigo-500" aria-hidden /> {ALERTS_TEXT.title}
      </h2>
      {!page ? (
        <div className="mt-2">
          <Alert kind="error">{ALERTS_TEXT.loadFailed}</Alert>
        </div>
      ) : page.plan === "free" ? (
        <FreePlan page={page} />
      ) : (
        <>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{ALERTS_TEXT.intro}</p>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{ALERTS_TEXT.retention(page.retention_days)}</p>
          <SettingsForm deploymentId={deploymentId} page={page} form={settings} id={id} />
          <test.fetcher.Form method="post" className="mt-3">
            <Enhanced />
            <input type="hidden" name="intent" value="alert-test" />
            <input type="hidden" name="deployment" value={deploymentId} />
            <Button type="submit" size="sm" variant="secondary" disabled={test.busy}>
              {test.busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Send className="h-4 w-4" aria-hidden />}
              {test.busy ? ALERTS_TEXT.sendingTest : ALERTS_TEXT.sendTest}
            </Button>
            <Answer answer={test.answer} intent="alert-test" />
          </test.fetcher.Form>
          <AlertList page={page} id={id} />
        </>
      )}
    </section>
  );
}

function FreePlan({ page }: { page: AlertsPage }) {
  return (
    <>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
        {ALERTS_TEXT.retention(page.retention_days)} {ALERTS_TEXT.proOnly}
      </p>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm">
        {ALERTS_TEXT.proAdds(page.free_retention_days, page.pro_retention_days).map((f) => (
          <li key={f}>{f}</li>
        ))}
      </ul>
      <Link
        to="/subscription"
        className="mt-3 inline-block rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        {ALERTS_TEXT.upgrade}
      </Link>
    </>
  );
}

function SettingsForm(p: { deploymentId: string; page: AlertsPage; form: ReturnType<typeof useActionForm<DeployAnswer>>; id: string }) {
  const { fetcher, answer, busy } = p.form;
  const s = p.page.settings;
  // Keyed by the saved values: a save (or a new page load) shows what was stored.
  const key = `${s.email}-${s.error_rate_pct}-${s.p95_ms}`;
  return (
    <fetcher.Form method="post" className="mt-3 space-y-3" key={key}>
      <Enhanced />
      <input type="hidden" name="intent" value="alert-settings" />
      <input type="hidden" name="deployment" value={p.deploymentId} />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="email" value="on" defaultChecked={s.email} className="h-4 w-4 accent-indigo-600" />
        {ALERTS_TEXT.emailLabel}
      </label>
      <div className="grid gap-3 sm:grid-cols-2">
        <Threshold
          id={`${p.id}-rate`}
          name="error_rate_pct"
          label={ALERTS_TEXT.errorRateLabel}
          hint={ALERTS_TEXT.errorRateHint}
          value={s.error_rate_pct}
          max={100}
        />
        <Threshold
          id={`${p.id}-p95`}
          name="p95_ms"
          label={ALERTS_TEXT.p95Label}
          hint={ALERTS_TEXT.p95Hint}
          value={s.p95_ms}
          max={600_000}
        />
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">{ALERTS_TEXT.minRequests(p.page.min_requests)}</p>
      <Button type="submit" size="sm" disabled={busy}>
        {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {busy ? ALERTS_TEXT.saving : ALERTS_TEXT.save}
      </Button>
      <Answer answer={answer} intent="alert-settings" />
    </fetcher.Form>
  );
}

function Threshold(p: { id: string; name: string; label: string; hint: string; value: number | null; max: number }) {
  return (
    <div>
      <label htmlFor={p.id} className="text-xs font-medium text-slate-600 dark:text-slate-400">
        {p.label}
      </label>
      <input
        id={p.id}
        name={p.name}
        type="number"
        inputMode="numeric"
        min={1}
        max={p.max}
        step={1}
        defaultValue={p.value ?? ""}
        aria-describedby={`${p.id}-hint`}
        className={`${inputClass} mt-1 py-1.5 text-sm`}
      />
      <p id={`${p.id}-hint`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {p.hint}
      </p>
    </div>
  );
}

function Answer({ answer, intent }: { answer: DeployAnswer | undefined; intent: string }) {
  if (!answer || answer.intent !== intent) return null;
  return (
    <div className="mt-2" aria-live="polite">
      <Alert kind={answer.error ? "error" : "success"}>{answer.error ?? answer.message}</Alert>
    </div>
  );
}

function AlertList({ page, id }: { page: AlertsPage; id: string }) {
  return (
    <div className="mt-4">
      <h3 id={`${id}-list`} className="text-sm font-semibold">
        {ALERTS_TEXT.list}
      </h3>
      {page.alerts.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{ALERTS_TEXT.none}</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-200 text-sm dark:divide-slate-800" aria-labelledby={`${id}-list`}>
          {page.alerts.map((a) => (
            <li key={a.id} className="py-2" data-testid="alert">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-medium">{ALERT_KIND_LABEL[a.kind]}</span>
                {a.kind === "test" ? null : a.resolved_at === null ? (
                  <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-800 dark:bg-red-950 dark:text-red-300">
                    {ALERTS_TEXT.open}
                  </span>
                ) : (
                  <span className="text-xs text-slate-600 dark:text-slate-400">{ALERTS_TEXT.resolved(dateTime(a.resolved_at))}</span>
                )}
                <span className="ml-auto text-xs text-slate-600 dark:text-slate-400">
                  <time dateTime={a.opened_at}>{dateTime(a.opened_at)}</time> · {ALERT_EMAIL_LABEL[a.email]}
                </span>
              </div>
              <p className="mt-1 break-words text-slate-700 dark:text-slate-300">{a.message}</p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
