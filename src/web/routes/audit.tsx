import { ChevronLeft, ChevronRight, FileText, History, SlidersHorizontal } from "~/web/components/icons";
import { Form, Link, redirect } from "react-router";
import { AUDIT_TEXT, type AuditEntry, type AuditPage } from "../../shared/audit";
import type { OrgView } from "../../shared/orgs";
import { Alert, Button, buttonClass, inputClass } from "../components/ui";
import type { Route } from "./+types/audit";

// The audit log (docs/product.md#audit-log): who did what, when and from where. A person's own
// actions, an organisation's (its owners and admins), or everything (the site's admins); filters
// are a plain GET form, so links to a filtered view can be shared and work without scripts.

export function meta() {
  return [{ title: AUDIT_TEXT.title }, { name: "robots", content: "noindex" }];
}

const FILTERS = ["scope", "action", "actor", "from", "to"] as const;

export async function loader({ context, request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(url.pathname + url.search)}`);
  const q = new URLSearchParams();
  for (const k of [...FILTERS, "before"] as const) {
    const v = url.searchParams.get(k)?.trim();
    if (v) q.set(k, v);
  }
  const [page, orgs] = await Promise.all([context.api<AuditPage>("GET", `/api/audit?${q}`), context.api<OrgView[]>("GET", "/api/orgs")]);
  const filters = Object.fromEntries(FILTERS.map((k) => [k, url.searchParams.get(k) ?? ""])) as Record<(typeof FILTERS)[number], string>;
  const exportQuery = new URLSearchParams([...q].filter(([k]) => k !== "before"));
  return {
    page: page.ok ? page.data : null,
    error: page.ok ? null : (page.error ?? AUDIT_TEXT.loadFailed),
    scopes: (orgs.ok ? orgs.data : []).filter((o) => o.role === "owner" || o.role === "admin"),
    isAdmin: context.viewer.isAdmin,
    filters,
    exportQuery: exportQuery.toString(),
    newer: Boolean(url.searchParams.get("before")),
  };
}

export default function Audit({ loaderData }: Route.ComponentProps) {
  const { page, error, scopes, isAdmin, filters, exportQuery, newer } = loaderData;
  const withParams = (extra: Record<string, string>) => {
    const p = new URLSearchParams(exportQuery);
    for (const [k, v] of Object.entries(extra)) p.set(k, v);
    return p.toString();
  };
  return (
    <section className="mx-auto max-w-6xl px-4 py-10">
      <h1 className="flex items-center gap-2 text-2xl font-bold">
        <History className="h-6 w-6 text-indigo-500" aria-hidden /> {AUDIT_TEXT.title}
      </h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">
        {AUDIT_TEXT.intro} {page && AUDIT_TEXT.retention(page.retention_days)}
      </p>

      <Form
        method="get"
        className="mt-6 grid gap-3 rounded-xl border border-slate-200 p-4 sm:grid-cols-3 lg:grid-cols-6 dark:border-slate-800"
        aria-label={AUDIT_TEXT.filter}
      >
        <label className="text-sm">
          <span className="mb-1 block font-medium">{AUDIT_TEXT.scopeLabel}</span>
          <select name="scope" defaultValue={filters.scope} className={inputClass}>
            <option value="">{AUDIT_TEXT.mine}</option>
            {scopes.map((o) => (
              <option key={o.id} value={o.slug}>
                {o.name}
              </option>
            ))}
            {isAdmin && <option value="all">{AUDIT_TEXT.everything}</option>}
          </select>
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">{AUDIT_TEXT.actionLabel}</span>
          <input
            name="action"
            defaultValue={filters.action}
            placeholder="member.*"
            className={`${inputClass} font-mono`}
            autoCapitalize="none"
            spellCheck={false}
          />
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">{AUDIT_TEXT.actorLabel}</span>
          <input
            name="actor"
            defaultValue={filters.actor}
            placeholder="username"
            className={inputClass}
            autoCapitalize="none"
            spellCheck={false}
          />
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">{AUDIT_TEXT.fromLabel}</span>
          <input type="date" name="from" defaultValue={filters.from} className={inputClass} />
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium">{AUDIT_TEXT.toLabel}</span>
          <input type="date" name="to" defaultValue={filters.to} className={inputClass} />
        </label>
        <div className="flex items-end">
          <Button type="submit" variant="secondary" block>
            <SlidersHorizontal className="h-4 w-4" aria-hidden /> {AUDIT_TEXT.filter}
          </Button>
        </div>
      </Form>

      <div className="mt-4 flex flex-wrap gap-2">
        <a href={`/api/audit?${withParams({ format: "csv" })}`} className={buttonClass("secondary", "sm")} download>
          <FileText className="h-4 w-4" aria-hidden /> {AUDIT_TEXT.exportCsv}
        </a>
        <a href={`/api/audit?${withParams({ format: "jsonl" })}`} className={buttonClass("secondary", "sm")} download>
          <FileText className="h-4 w-4" aria-hidden /> {AUDIT_TEXT.exportJsonl}
        </a>
      </div>

      {error && (
        <div className="mt-6">
          <Alert kind="error">{error}</Alert>
        </div>
      )}
      {page && page.entries.length === 0 && <p className="mt-6 text-slate-600 dark:text-slate-400">{AUDIT_TEXT.none}</p>}
      {page && page.entries.length > 0 && (
        <div className="mt-6 overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-800">
          <table className="w-full min-w-[44rem] text-left text-sm" data-testid="audit">
            <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600 dark:bg-slate-900 dark:text-slate-400">
              <tr>
                <th scope="col" className="px-3 py-2">
                  {AUDIT_TEXT.when}
                </th>
                <th scope="col" className="px-3 py-2">
                  {AUDIT_TEXT.actorLabel}
                </th>
                <th scope="col" className="px-3 py-2">
                  {AUDIT_TEXT.what}
                </th>
                <th scope="col" className="px-3 py-2">
                  {AUDIT_TEXT.target}
                </th>
                <th scope="col" className="px-3 py-2">
                  {AUDIT_TEXT.details}
                </th>
                <th scope="col" className="px-3 py-2">
                  {AUDIT_TEXT.where}
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
              {page.entries.map((e) => (
                <Row key={e.id} e={e} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="mt-4 flex flex-wrap justify-between gap-2" aria-label="Pages">
        {newer ? (
          <Link to={`/audit?${exportQuery}`} className={buttonClass("ghost", "sm")}>
            <ChevronLeft className="h-4 w-4" aria-hidden /> {AUDIT_TEXT.newest}
          </Link>
        ) : (
          <span />
        )}
        {page?.next && (
          <Link to={`/audit?${withParams({ before: String(page.next) })}`} className={buttonClass("ghost", "sm")}>
            {AUDIT_TEXT.older} <ChevronRight className="h-4 w-4" aria-hidden />
          </Link>
        )}
      </nav>
    </section>
  );
}

function Row({ e }: { e: AuditEntry }) {
  const detail = Object.entries(e.detail)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" · ");
  return (
    <tr data-testid="audit-row">
      <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">
        <time dateTime={e.at}>{e.at.replace("T", " ").slice(0, 19)}</time>
      </td>
      <td className="px-3 py-2">
        {e.actor || "—"}
        {e.via === "api_key" && <span className="text-xs text-slate-600 dark:text-slate-400"> (key)</span>}
      </td>
      <td className="px-3 py-2 font-mono text-xs" data-testid="audit-action">
        {e.action}
        {e.org && <span className="block text-slate-600 dark:text-slate-400">{e.org}</span>}
      </td>
      <td className="break-all px-3 py-2 font-mono text-xs">{e.target}</td>
      <td className="break-words px-3 py-2 text-xs">{detail}</td>
      <td className="px-3 py-2 font-mono text-xs">{e.ip}</td>
    </tr>
  );
}
