import * as Tabs from "@radix-ui/react-tabs";
import { ArrowLeft, ExternalLink } from "lucide-react";
import { useState } from "react";
import { Link, redirect } from "react-router";
import { adminList } from "../../server/features/catalog/submissions";
import { ADMIN_TEXT, type AdminServer } from "../../shared/catalog";
import { SandboxStatus } from "../components/SandboxStatus";
import { Alert, Button, buttonClass } from "../components/ui";
import { api } from "../lib/api";
import type { Route } from "./+types/admin";
import { shortDate } from "../lib/dates";

export function meta() {
  return [{ title: ADMIN_TEXT.title }, { name: "robots", content: "noindex" }];
}

export async function loader({ context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/admin/mcp-servers");
  if (!context.viewer.isAdmin) throw redirect("/servers");
  const [pending, approved] = await Promise.all([adminList(context.db, "pending"), adminList(context.db, "approved")]);
  const { layer, complete, notes, guarantees } = context.sandbox;
  return { pending: pending.data, approved: approved.data, counts: pending.counts, sandbox: { layer, complete, notes, guarantees }, sandboxPolicy: context.config.SANDBOX_INCOMPLETE };
}

export default function Admin({ loaderData }: Route.ComponentProps) {
  const [pending, setPending] = useState(loaderData.pending);
  const [approved, setApproved] = useState(loaderData.approved);
  const [counts, setCounts] = useState(loaderData.counts);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Lists change locally after each success; on failure they stay as they were (docs/product.md#admin-review).
  async function run(s: AdminServer, action: "approve" | "reject" | "unapprove" | "accept-tools") {
    setBusyId(s.id);
    setError(null);
    const path = `/api/admin/mcp-servers/${encodeURIComponent(s.id)}`;
    const r =
      action === "reject"
        ? await api(path, { method: "DELETE", timeoutMs: 20_000 })
        : await api<{ server: AdminServer }>(`${path}/${action}`, { body: {}, timeoutMs: 20_000 });
    setBusyId(null);
    if (!r.ok) {
      setError(
        action === "approve" ? ADMIN_TEXT.approveFailed : action === "reject" ? ADMIN_TEXT.rejectFailed : action === "unapprove" ? ADMIN_TEXT.unapproveFailed : ADMIN_TEXT.acceptToolsFailed,
      );
      return;
    }
    const updatedAt = new Date().toISOString();
    if (action === "accept-tools") {
      setApproved((l) => l.map((x) => (x.id === s.id ? { ...x, tools_changed: null } : x)));
    } else if (action === "approve") {
      setPending((l) => l.filter((x) => x.id !== s.id));
      // Approving takes the tools as listed now.
      setApproved((l) => [{ ...s, is_approved: true, updated_at: updatedAt, tools_changed: null }, ...l]);
      setCounts((c) => ({ pending: c.pending - 1, approved: c.approved + 1 }));
    } else if (action === "unapprove") {
      setApproved((l) => l.filter((x) => x.id !== s.id));
      setPending((l) => [{ ...s, is_approved: false, updated_at: updatedAt, tools_changed: null }, ...l]);
      setCounts((c) => ({ pending: c.pending + 1, approved: c.approved - 1 }));
    } else {
      setPending((l) => l.filter((x) => x.id !== s.id));
      setCounts((c) => ({ ...c, pending: c.pending - 1 }));
    }
  }

  const card = (s: AdminServer, kind: "pending" | "approved") => {
    const busy = busyId === s.id;
    const label = (text: string) => (busy ? ADMIN_TEXT.processing : text);
    return (
      <li key={s.id} className="rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900/60" data-server={s.id}>
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <h3 className="text-lg font-semibold">{s.name}</h3>
            <p className="font-mono text-xs text-slate-500">{s.id}</p>
          </div>
          <span
            className={`rounded px-2 py-0.5 text-xs font-medium ${
              kind === "pending" ? "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300" : "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-300"
            }`}
          >
            {kind === "pending" ? ADMIN_TEXT.pendingBadge : ADMIN_TEXT.approvedBadge}
          </span>
        </div>
        {kind === "approved" && s.tools_changed && <ToolsChanged changes={s.tools_changed} />}
        <p className="mt-3 text-sm text-slate-700 dark:text-slate-300">{s.description}</p>
        <dl className="mt-4 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
          <div><dt className="inline text-slate-500">Category: </dt><dd className="inline">{s.category}</dd></div>
          <div><dt className="inline text-slate-500">Type: </dt><dd className="inline">{s.type}</dd></div>
          <div><dt className="inline text-slate-500">Source: </dt><dd className="inline">{s.source}</dd></div>
          <div className="truncate"><dt className="inline text-slate-500">URL: </dt><dd className="inline">{s.url ?? "-"}</dd></div>
          <div><dt className="inline text-slate-500">Submitted by: </dt><dd className="inline">{s.submitter.username} ({s.submitter.email})</dd></div>
          <div>
            <dt className="inline text-slate-500">{kind === "pending" ? "Submitted: " : "Approved: "}</dt>
            <dd className="inline">{shortDate(kind === "pending" ? s.created_at : s.updated_at)}</dd>
          </div>
        </dl>
        <ul className="mt-3 flex flex-wrap gap-1.5" aria-label="Tags">
          {s.tags.map((t) => (
            <li key={t} className="rounded bg-indigo-50 px-2 py-0.5 text-xs text-indigo-700 dark:bg-indigo-950/60 dark:text-indigo-300">{t}</li>
          ))}
        </ul>
        <div className="mt-4 flex flex-wrap gap-2">
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
          {kind === "pending" ? (
            <>
              <Button variant="danger" size="sm" disabled={busy} onClick={() => run(s, "reject")}>
                {label("Reject")}
              </Button>
              <Button variant="success" size="sm" disabled={busy} onClick={() => run(s, "approve")}>
                {label("Approve")}
              </Button>
            </>
          ) : (
            <>
              {s.tools_changed && (
                <Button variant="success" size="sm" disabled={busy} onClick={() => run(s, "accept-tools")}>
                  {label(ADMIN_TEXT.acceptTools)}
                </Button>
              )}
              <Button variant="warning" size="sm" disabled={busy} onClick={() => run(s, "unapprove")}>
                {label("Unapprove")}
              </Button>
            </>
          )}
        </div>
      </li>
    );
  };

  const tab = "-mb-px border-b-2 border-transparent px-4 py-2 text-sm font-medium text-slate-600 data-[state=active]:border-indigo-600 data-[state=active]:text-indigo-700 dark:text-slate-400 dark:data-[state=active]:text-indigo-300";
  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6">
      <Link to="/servers" className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400">
        <ArrowLeft className="h-4 w-4" aria-hidden /> Back to Servers
      </Link>
      <h1 className="mt-4 text-3xl font-bold tracking-tight">{ADMIN_TEXT.title}</h1>
      <SandboxStatus sandbox={loaderData.sandbox} policy={loaderData.sandboxPolicy} />
      {error && (
        <div className="mt-4">
          <Alert kind="error">{error}</Alert>
        </div>
      )}
      {approved.some((s) => s.tools_changed) && (
        <div className="mt-4">
          <Alert kind="warning">{ADMIN_TEXT.toolsChangedSummary(approved.filter((s) => s.tools_changed).length)}</Alert>
        </div>
      )}
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
          {pending.length === 0 ? <p className="text-slate-600 dark:text-slate-400">{ADMIN_TEXT.noPending}</p> : <ul className="space-y-4">{pending.map((s) => card(s, "pending"))}</ul>}
        </Tabs.Content>
        <Tabs.Content value="approved" className="mt-6">
          {approved.length === 0 ? <p className="text-slate-600 dark:text-slate-400">{ADMIN_TEXT.noApproved}</p> : <ul className="space-y-4">{approved.map((s) => card(s, "approved"))}</ul>}
        </Tabs.Content>
      </Tabs.Root>
    </div>
  );
}

/** An approved entry whose listed tools changed since approval: which ones, by name. */
function ToolsChanged({ changes }: { changes: NonNullable<AdminServer["tools_changed"]> }) {
  const rows = [
    [ADMIN_TEXT.toolsAdded, changes.added],
    [ADMIN_TEXT.toolsChangedList, changes.changed],
    [ADMIN_TEXT.toolsRemoved, changes.removed],
  ] as const;
  return (
    <div role="status" data-testid="tools-changed" className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200">
      <p className="font-semibold">{ADMIN_TEXT.toolsChanged}</p>
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
