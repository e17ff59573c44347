import { ExternalLink } from "~/web/components/icons";
import { Link } from "react-router";
import { ADMIN_TEXT, CHECK_TEXT, REJECT_REASON_MAX, type AdminServer } from "~/shared/catalog";
import { SYNC_TEXT } from "~/shared/catalog-sync";
import { longDate } from "../../lib/dates";
import { Enhanced, useActionForm } from "../../lib/forms";
import { ConfirmButton } from "../ConfirmButton";
import { Alert, Button, buttonClass, inputClass } from "../ui";
import type { AdminAnswer, AdminIntent } from "./answer";
import { EditEntry } from "./EditEntry";
import { ToolsChanged } from "./ToolsChanged";
import { WhatRuns } from "./WhatRuns";

// One submission on the admin page, pending or approved: what it is, who sent it, its check, and
// the buttons that post its decisions to the page's action.

export type { AdminAnswer, AdminIntent } from "./answer";

/** One entry with its actions; while one runs its buttons are disabled and read 'Processing...'. */
export function AdminCard({ s, kind }: { s: AdminServer; kind: "pending" | "approved" }) {
  const { fetcher, busy } = useActionForm<AdminAnswer>(`admin-${s.id}`);
  const error = fetcher.data?.error ?? null;
  const label = (text: string) => (busy ? ADMIN_TEXT.processing : text);
  const formId = `admin-${s.id}`;
  const act = (intent: AdminIntent, variant: "danger" | "success" | "warning", text: string) => (
    <Button type="submit" name="intent" value={intent} variant={variant} size="sm" disabled={busy}>
      {label(text)}
    </Button>
  );
  return (
    <li className="rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900/60" data-server={s.id}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          {/* The entry's own page (pending ones are shown to admins there too): its description and links as users will see them. */}
          <h3 className="text-lg font-semibold">
            <Link to={`/server/${encodeURIComponent(s.id)}`} className="hover:underline">
              {s.name}
            </Link>
          </h3>
          <p className="font-mono text-xs text-slate-600 dark:text-slate-400">{s.id}</p>
        </div>
        <span
          className={`rounded px-2 py-0.5 text-xs font-medium ${
            kind === "pending"
              ? "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300"
              : "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-300"
          }`}
        >
          {kind === "pending" ? ADMIN_TEXT.pendingBadge : ADMIN_TEXT.approvedBadge}
        </span>
      </div>
      {s.local_edits && (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          <span className="rounded bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-800 dark:bg-sky-900/40 dark:text-sky-300">
            {SYNC_TEXT.localEdits}
          </span>{" "}
          {SYNC_TEXT.localEditsHint}
        </p>
      )}
      {s.tools_changed && <ToolsChanged changes={s.tools_changed} first={kind === "pending" || !s.public_listing} />}
      {s.check && (
        <p
          role="status"
          className={`mt-3 text-sm ${s.check.status === "failed" ? "text-red-700 dark:text-red-300" : "text-slate-600 dark:text-slate-400"}`}
        >
          {s.check.status === "checking" ? CHECK_TEXT.checking : CHECK_TEXT.checkFailed(s.check.detail ?? CHECK_TEXT.failed)}
        </p>
      )}
      <p className="mt-3 text-sm text-slate-700 dark:text-slate-300">{s.description}</p>
      <dl className="mt-4 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
        <div>
          <dt className="inline text-slate-600 dark:text-slate-400">Category: </dt>
          <dd className="inline">{s.category}</dd>
        </div>
        <div>
          <dt className="inline text-slate-600 dark:text-slate-400">Type: </dt>
          <dd className="inline">{s.type}</dd>
        </div>
        <div>
          <dt className="inline text-slate-600 dark:text-slate-400">Source: </dt>
          <dd className="inline">{s.source}</dd>
        </div>
        <div className="truncate">
          <dt className="inline text-slate-600 dark:text-slate-400">URL: </dt>
          <dd className="inline">{s.url ?? "-"}</dd>
        </div>
        <div>
          <dt className="inline text-slate-600 dark:text-slate-400">Submitted by: </dt>
          <dd className="inline">
            {s.submitter.username} ({s.submitter.email})
          </dd>
        </div>
        <div>
          <dt className="inline text-slate-600 dark:text-slate-400">{kind === "pending" ? "Submitted: " : "Approved: "}</dt>
          <dd className="inline">{longDate(kind === "pending" ? s.created_at : s.updated_at)}</dd>
        </div>
      </dl>
      {s.runs && <WhatRuns runs={s.runs} keys={s.required_keys ?? []} />}
      <ul className="mt-3 flex flex-wrap gap-1.5" aria-label="Tags">
        {s.tags.map((t) => (
          <li key={t} className="rounded bg-indigo-50 px-2 py-0.5 text-xs text-indigo-700 dark:bg-indigo-950/60 dark:text-indigo-300">
            {t}
          </li>
        ))}
      </ul>
      {error && (
        <div className="mt-3">
          <Alert kind="error">{error}</Alert>
        </div>
      )}
      <fetcher.Form method="post" id={formId} className="mt-4 flex flex-wrap gap-2">
        <Enhanced />
        <input type="hidden" name="id" value={s.id} />
        {kind === "approved" && (
          <Link to={`/server/${encodeURIComponent(s.id)}`} className={buttonClass("secondary", "sm")}>
            View Detail
          </Link>
        )}
        {s.url && (
          <a href={s.url} target="_blank" rel="noopener nofollow ugc" className={buttonClass("secondary", "sm")}>
            Visit Server <ExternalLink className="h-3.5 w-3.5" aria-hidden />
          </a>
        )}
        <Button type="submit" name="intent" value="check" variant="secondary" size="sm" disabled={busy || s.check?.status === "checking"}>
          {busy ? ADMIN_TEXT.processing : s.check?.status === "checking" ? CHECK_TEXT.checking : CHECK_TEXT.checkNow}
        </Button>
        {s.local_edits && s.synced && act("take-upstream", "warning", SYNC_TEXT.takeUpstream)}
        {kind === "pending" ? (
          <>
            <RejectButton s={s} formId={formId} busy={busy} />
            {act("approve", "success", "Approve")}
          </>
        ) : (
          <>
            {s.tools_changed && act("accept-tools", "success", ADMIN_TEXT.acceptTools)}
            {act("unapprove", "warning", "Unapprove")}
          </>
        )}
      </fetcher.Form>
      <EditEntry s={s} />
    </li>
  );
}

/**
 * Reject: it asks first, with an optional reason for the submitter (e-mailed, and shown on My
 * submissions). The reason's field belongs to the card's form wherever the question shows.
 */
function RejectButton({ s, formId, busy }: { s: AdminServer; formId: string; busy: boolean }) {
  const imported = s.source === "imported";
  return (
    <ConfirmButton
      variant="danger"
      label={busy ? ADMIN_TEXT.processing : ADMIN_TEXT.reject}
      disabled={busy}
      name="intent"
      value="reject"
      title={ADMIN_TEXT.rejectTitle(s.name)}
      description={imported ? ADMIN_TEXT.rejectImportedText : ADMIN_TEXT.rejectText}
      confirmLabel={ADMIN_TEXT.reject}
      cancelLabel={ADMIN_TEXT.cancel}
    >
      {!imported && (
        <div>
          <label htmlFor={`${formId}-reason`} className="mb-1 block text-sm font-medium">
            {ADMIN_TEXT.reasonLabel}
          </label>
          <textarea
            id={`${formId}-reason`}
            name="reason"
            form={formId}
            rows={3}
            maxLength={REJECT_REASON_MAX}
            aria-describedby={`${formId}-reason-hint`}
            className={inputClass}
          />
          <p id={`${formId}-reason-hint`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            {ADMIN_TEXT.reasonHint(REJECT_REASON_MAX)}
          </p>
        </div>
      )}
    </ConfirmButton>
  );
}
