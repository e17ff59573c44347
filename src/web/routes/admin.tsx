import * as Tabs from "@radix-ui/react-tabs";
import { ArrowLeft, ExternalLink } from "lucide-react";
import { useEffect, type ReactNode } from "react";
import { Link, redirect, useActionData, useRevalidator } from "react-router";
import { adminList } from "../../server/features/catalog/submissions";
import { ADMIN_TEXT, CHECK_TEXT, type AdminServer } from "../../shared/catalog";
import { SandboxStatus } from "../components/SandboxStatus";
import { Alert, Button, buttonClass } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { shortDate } from "../lib/dates";
import { Enhanced, useActionForm, useHydrated } from "../lib/forms";
import type { Route } from "./+types/admin";

export function meta() {
  return [{ title: ADMIN_TEXT.title }, { name: "robots", content: "noindex" }];
}

export async function loader({ context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/admin/mcp-servers");
  if (!context.viewer.isAdmin) throw redirect("/servers");
  const opts = { allowFileGit: context.config.GIT_ALLOW_FILE === "on" };
  const [pending, approved] = await Promise.all([adminList(context.db, "pending", opts), adminList(context.db, "approved", opts)]);
  const { layer, complete, notes, guarantees } = context.sandbox;
  return {
    pending: pending.data,
    approved: approved.data,
    counts: pending.counts,
    sandbox: { layer, complete, notes, guarantees },
    sandboxPolicy: context.config.SANDBOX_INCOMPLETE,
  };
}

type Intent = "approve" | "reject" | "unapprove" | "accept-tools" | "check";
type Answer = { id: string; error?: string };
const FAILED: Record<Intent, string> = {
  approve: ADMIN_TEXT.approveFailed,
  reject: ADMIN_TEXT.rejectFailed,
  unapprove: ADMIN_TEXT.unapproveFailed,
  "accept-tools": ADMIN_TEXT.acceptToolsFailed,
  check: CHECK_TEXT.checkFailedAction,
};

// Approve, Reject, Unapprove and Accept tools: the admin API's calls. Without JavaScript a success
// comes back to this page (its lists are read again); with it, the lists are read again in place.
export async function action({ context, request }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/admin/mcp-servers");
  if (!context.viewer.isAdmin) throw redirect("/servers");
  const form = await request.formData();
  const id = field(form, "id");
  const intent = field(form, "intent") as Intent;
  if (!(intent in FAILED)) return { id, error: ADMIN_TEXT.approveFailed } satisfies Answer;
  const path = `/api/admin/mcp-servers/${encodeURIComponent(id)}`;
  const r = intent === "reject" ? await context.api("DELETE", path) : await context.api("POST", `${path}/${intent}`, {});
  // A check refused says why (it cannot run here, one is running already).
  if (!r.ok)
    return { id, error: intent === "check" && r.status >= 400 && r.status < 500 && r.error ? r.error : FAILED[intent] } satisfies Answer;
  if (!isEnhanced(form)) throw redirect("/admin/mcp-servers", 303);
  return { id } satisfies Answer;
}

export default function Admin({ loaderData }: Route.ComponentProps) {
  const hydrated = useHydrated();
  const { pending, approved, counts } = loaderData;
  // While a check runs, the page reads the lists again every few seconds (its listing arrives).
  const revalidator = useRevalidator();
  const checking = [...pending, ...approved].some((s) => s.check?.status === "checking");
  useEffect(() => {
    if (!checking) return;
    const t = setInterval(() => revalidator.state === "idle" && void revalidator.revalidate(), 3000);
    return () => clearInterval(t);
  }, [checking, revalidator]);
  const lastError = useActionData<typeof action>()?.error ?? null;

  const tab =
    "-mb-px border-b-2 border-transparent px-4 py-2 text-sm font-medium text-slate-600 data-[state=active]:border-indigo-600 data-[state=active]:text-indigo-700 dark:text-slate-400 dark:data-[state=active]:text-indigo-300";
  const pendingList =
    pending.length === 0 ? (
      <p className="text-slate-600 dark:text-slate-400">{ADMIN_TEXT.noPending}</p>
    ) : (
      <ul className="space-y-4">
        {pending.map((s) => (
          <AdminCard key={s.id} s={s} kind="pending" />
        ))}
      </ul>
    );
  const approvedList =
    approved.length === 0 ? (
      <p className="text-slate-600 dark:text-slate-400">{ADMIN_TEXT.noApproved}</p>
    ) : (
      <ul className="space-y-4">
        {approved.map((s) => (
          <AdminCard key={s.id} s={s} kind="approved" />
        ))}
      </ul>
    );
  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6">
      <Link
        to="/servers"
        className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400"
      >
        <ArrowLeft className="h-4 w-4" aria-hidden /> Back to Servers
      </Link>
      <h1 className="mt-4 text-3xl font-bold tracking-tight">{ADMIN_TEXT.title}</h1>
      <SandboxStatus sandbox={loaderData.sandbox} policy={loaderData.sandboxPolicy} />
      {lastError && (
        <div className="mt-4">
          <Alert kind="error">{lastError}</Alert>
        </div>
      )}
      {approved.some((s) => s.tools_changed) && (
        <div className="mt-4">
          <Alert kind="warning">{ADMIN_TEXT.toolsChangedSummary(approved.filter((s) => s.tools_changed).length)}</Alert>
        </div>
      )}
      {hydrated ? (
        <Tabs.Root defaultValue="pending" className="mt-6">
          <Tabs.List aria-label="Submissions" className="flex gap-2 border-b border-slate-200 dark:border-slate-800">
            <Tabs.Trigger value="pending" className={tab}>
              {ADMIN_TEXT.pendingTab(counts.pending)}
            </Tabs.Trigger>
            <Tabs.Trigger value="approved" className={tab}>
              {ADMIN_TEXT.approvedTab(counts.approved)}
            </Tabs.Trigger>
          </Tabs.List>
          <Tabs.Content value="pending" className="mt-6">
            {pendingList}
          </Tabs.Content>
          <Tabs.Content value="approved" className="mt-6">
            {approvedList}
          </Tabs.Content>
        </Tabs.Root>
      ) : (
        // Tabs need scripts: without them both lists show, one after the other.
        <>
          <ListSection id="pending-list" title={ADMIN_TEXT.pendingTab(counts.pending)} className="mt-6">
            {pendingList}
          </ListSection>
          <ListSection id="approved-list" title={ADMIN_TEXT.approvedTab(counts.approved)} className="mt-10">
            {approvedList}
          </ListSection>
        </>
      )}
    </div>
  );
}

/** One entry with its actions; while one runs its buttons are disabled and read 'Processing...'. */
function AdminCard({ s, kind }: { s: AdminServer; kind: "pending" | "approved" }) {
  const { fetcher, busy } = useActionForm<Answer>(`admin-${s.id}`);
  const error = fetcher.data?.error ?? null;
  const label = (text: string) => (busy ? ADMIN_TEXT.processing : text);
  const act = (intent: Intent, variant: "danger" | "success" | "warning", text: string) => (
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
          <dd className="inline">{shortDate(kind === "pending" ? s.created_at : s.updated_at)}</dd>
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
      <fetcher.Form method="post" className="mt-4 flex flex-wrap gap-2">
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
        {kind === "pending" ? (
          <>
            {act("reject", "danger", "Reject")}
            {act("approve", "success", "Approve")}
          </>
        ) : (
          <>
            {s.tools_changed && act("accept-tools", "success", ADMIN_TEXT.acceptTools)}
            {act("unapprove", "warning", "Unapprove")}
          </>
        )}
      </fetcher.Form>
    </li>
  );
}

/** What approving lets people deploy: the command or repository, the keys it asks for, how it speaks, or why it cannot run here. */
function WhatRuns({ runs, keys }: { runs: NonNullable<AdminServer["runs"]>; keys: NonNullable<AdminServer["required_keys"]> }) {
  const dt = "text-slate-600 dark:text-slate-400";
  return (
    <section
      aria-label={ADMIN_TEXT.whatRuns}
      data-testid="what-runs"
      className="mt-4 rounded-lg border border-slate-200 p-3 text-sm dark:border-slate-800"
    >
      <h4 className="font-semibold">{ADMIN_TEXT.whatRuns}</h4>
      <dl className="mt-2 space-y-1.5">
        {runs.command && (
          <div>
            <dt className={dt}>Command</dt>
            <dd>
              <code className="block overflow-x-auto whitespace-pre rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-950">
                {runs.command}
              </code>
            </dd>
          </div>
        )}
        {runs.repository && (
          <div>
            <dt className={dt}>Builds the repository</dt>
            <dd className="break-all font-mono text-xs">{runs.repository}</dd>
          </div>
        )}
        {runs.remote && (
          <div>
            <dt className={dt}>Hosted by its publisher at</dt>
            <dd className="break-all font-mono text-xs">{runs.remote}</dd>
          </div>
        )}
        <div>
          <dt className={`${dt} inline`}>Transport: </dt>
          <dd className="inline font-mono text-xs">{runs.transport ?? "-"}</dd>
        </div>
        <div>
          <dt className={`${dt} inline`}>Required keys: </dt>
          <dd className="inline break-all font-mono text-xs">{keys.length ? keys.map((k) => k.env_var).join(", ") : ADMIN_TEXT.noKeys}</dd>
        </div>
      </dl>
      {runs.reason && <p className="mt-2 text-amber-800 dark:text-amber-300">{runs.reason}</p>}
    </section>
  );
}

/** A check listed tools that are not public yet: which ones differ from the approved listing, by name. */
function ToolsChanged({ changes, first }: { changes: NonNullable<AdminServer["tools_changed"]>; first: boolean }) {
  const rows = [
    [ADMIN_TEXT.toolsAdded, changes.added],
    [ADMIN_TEXT.toolsChangedList, changes.changed],
    [ADMIN_TEXT.toolsRemoved, changes.removed],
  ] as const;
  return (
    <div
      role="status"
      data-testid="tools-changed"
      className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
    >
      <p className="font-semibold">{first ? CHECK_TEXT.firstListing : ADMIN_TEXT.toolsChanged}</p>
      <dl className="mt-1 space-y-0.5">
        {rows.map(([label, names]) =>
          names.length ? (
            <div key={label}>
              <dt className="inline">{label}: </dt>
              <dd className="inline font-mono text-xs">{names.join(", ")}</dd>
            </div>
          ) : null,
        )}
      </dl>
    </div>
  );
}

/** One of the two lists, headed, as the page shows them without scripts. */
function ListSection({ id, title, className, children }: { id: string; title: string; className: string; children: ReactNode }) {
  return (
    <section className={className} aria-labelledby={id}>
      <h2 id={id} className="border-b border-slate-200 pb-2 text-lg font-semibold dark:border-slate-800">
        {title}
      </h2>
      <div className="mt-6">{children}</div>
    </section>
  );
}
