import { Globe, Loader2, Plus } from "~/web/components/icons";
import { Link } from "react-router";
import { DOMAIN_TEXT, type DomainsPage, type DomainView } from "../../../shared/domains";
import type { DeployAnswer } from "../../lib/deploy-types";
import { Enhanced, useActionForm, useLatest } from "../../lib/forms";
import { ConfirmButton } from "../ConfirmButton";
import { CopyButton } from "../CopyButton";
import { Alert, Button, inputClass } from "../ui";

// Custom domains on a deployment's page (its owner only; docs/operations.md#custom-domains). Pro:
// add a domain, publish the TXT record shown and a CNAME to PUBLIC_URL's host, verify; the URL to give clients once verified. Free:
// what Pro adds. Every form posts to the page's action (lib/deploy.server.ts): no JavaScript needed.

interface Props {
  deploymentId: string;
  initial: DomainsPage | null;
  className: string;
}

export function DomainsCard({ deploymentId, initial, className }: Props) {
  const form = useActionForm<DeployAnswer>("domains");
  const page = useLatest(initial, [form.fetcher.data], (d) => d.domains);
  const pending = form.fetcher.state !== "idle" ? String(form.fetcher.formData?.get("intent") ?? "") : "";
  const answer = form.answer?.intent.startsWith("domain-") ? form.answer : undefined;

  const id = `domains-${deploymentId}`;
  return (
    <section className={className} aria-labelledby={`${id}-title`} data-testid="domains">
      <h2 id={`${id}-title`} className="flex items-center gap-2 text-lg font-semibold">
        <Globe className="h-5 w-5 text-indigo-500" aria-hidden /> {DOMAIN_TEXT.title}
      </h2>
      {!page ? null : page.plan === "free" ? (
        <>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.proOnly}</p>
          <Link
            to="/subscription"
            className="mt-3 inline-block rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            {DOMAIN_TEXT.upgrade}
          </Link>
        </>
      ) : (
        <>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.intro(page.host)}</p>
          {page.domains.length < page.max && (
            // Keyed by the list: once a domain is added the field starts empty again.
            <form.fetcher.Form
              method="post"
              className="mt-3 flex flex-wrap items-end gap-2"
              key={page.domains.map((d) => d.domain).join(" ")}
            >
              <Enhanced />
              <input type="hidden" name="intent" value="domain-add" />
              <input type="hidden" name="deployment" value={deploymentId} />
              <div className="min-w-0 flex-1">
                <label htmlFor={`${id}-domain`} className="text-xs font-medium text-slate-600 dark:text-slate-400">
                  {DOMAIN_TEXT.label}
                </label>
                <input
                  id={`${id}-domain`}
                  name="domain"
                  required
                  maxLength={253}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={DOMAIN_TEXT.placeholder}
                  className={`${inputClass} mt-1 py-1.5 font-mono text-sm`}
                />
              </div>
              <Button type="submit" size="sm" disabled={form.busy}>
                {pending === "domain-add" ? (
                  <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
                ) : (
                  <Plus className="h-4 w-4" aria-hidden />
                )}
                {pending === "domain-add" ? DOMAIN_TEXT.adding : DOMAIN_TEXT.add}
              </Button>
            </form.fetcher.Form>
          )}
          {answer && (
            <div className="mt-2" aria-live="polite">
              <Alert kind={answer.error ? "error" : "success"}>{answer.error ?? answer.message}</Alert>
            </div>
          )}
          {page.domains.length === 0 ? (
            <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.none}</p>
          ) : (
            <ul className="mt-3 space-y-3">
              {page.domains.map((d) => (
                <DomainItem key={d.domain} d={d} deploymentId={deploymentId} Form={form.fetcher.Form} busy={form.busy} pending={pending} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

function DomainItem(p: {
  d: DomainView;
  deploymentId: string;
  Form: ReturnType<typeof useActionForm<DeployAnswer>>["fetcher"]["Form"];
  busy: boolean;
  pending: string;
}) {
  const { d } = p;
  const tone =
    d.status === "verified"
      ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300"
      : d.status === "suspended"
        ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300"
        : "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300";
  const hidden = (intent: string) => (
    <>
      <Enhanced />
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="deployment" value={p.deploymentId} />
      <input type="hidden" name="domain" value={d.domain} />
    </>
  );
  return (
    <li className="rounded-lg border border-slate-200 p-3 text-sm dark:border-slate-800" data-testid="domain">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono font-semibold">{d.domain}</span>
        <span className={`rounded-full px-2 py-0.5 text-xs font-semibold ${tone}`}>{DOMAIN_TEXT.status[d.status]}</span>
      </div>
      {d.status === "verified" ? (
        <div className="mt-2 flex items-center gap-2">
          <span className="text-xs text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.urlLabel}</span>
          <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-950">{d.url}</code>
          <CopyButton text={d.url} />
        </div>
      ) : (
        <dl className="mt-2 grid grid-cols-1 gap-1 text-xs">
          <dt className="text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.txtName}</dt>
          <dd className="flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono dark:bg-slate-950" title={d.txt.name}>
              {d.txt.name}
            </code>
            <CopyButton text={d.txt.name} />
          </dd>
          <dt className="text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.txtValue}</dt>
          <dd className="flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono dark:bg-slate-950" title={d.txt.value}>
              {d.txt.value}
            </code>
            <CopyButton text={d.txt.value} />
          </dd>
          <dt className="mt-1 text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.cnameName}</dt>
          <dd className="flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono dark:bg-slate-950" title={d.cname.name}>
              {d.cname.name}
            </code>
            <CopyButton text={d.cname.name} />
          </dd>
          <dt className="text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.cnameValue}</dt>
          <dd className="flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono dark:bg-slate-950" title={d.cname.value}>
              {d.cname.value}
            </code>
            <CopyButton text={d.cname.value} />
          </dd>
        </dl>
      )}
      {d.status !== "verified" && <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{DOMAIN_TEXT.cnameHint}</p>}
      <div className="mt-2 flex flex-wrap gap-2">
        {d.status !== "verified" && (
          <p.Form method="post">
            {hidden("domain-verify")}
            <Button type="submit" size="sm" disabled={p.busy}>
              {p.pending === "domain-verify" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
              {p.pending === "domain-verify" ? DOMAIN_TEXT.verifying : DOMAIN_TEXT.verify}
            </Button>
          </p.Form>
        )}
        <p.Form method="post">
          {hidden("domain-remove")}
          <ConfirmButton
            variant="secondary"
            label={
              <>
                {DOMAIN_TEXT.remove}
                <span className="sr-only"> {d.domain}</span>
              </>
            }
            busy={p.pending === "domain-remove"}
            disabled={p.busy}
            title={DOMAIN_TEXT.removeTitle(d.domain)}
            description={DOMAIN_TEXT.removeText(d.domain)}
            confirmLabel={DOMAIN_TEXT.remove}
            cancelLabel={DOMAIN_TEXT.cancel}
          />
        </p.Form>
      </div>
    </li>
  );
}
