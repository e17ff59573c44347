import { ArrowLeft } from "~/web/components/icons";
import { useEffect, type ReactNode } from "react";
import { Link, redirect, useActionData, useRevalidator } from "react-router";
import { ADMIN_TEXT, CHECK_TEXT, type AdminServer } from "../../shared/catalog";
import { SYNC_TEXT, type SyncStatus } from "../../shared/catalog-sync";
import { AdminCard, type AdminAnswer, type AdminIntent } from "../components/admin/AdminCard";
import { RegistrySyncCard } from "../components/admin/RegistrySyncCard";
import { SandboxStatus } from "../components/SandboxStatus";
import { Tabs } from "../components/Tabs";
import { Alert } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { useHydrated } from "../lib/forms";
import type { Route } from "./+types/admin";

export function meta() {
  return [{ title: ADMIN_TEXT.title }, { name: "robots", content: "noindex" }];
}

/** GET /api/admin/mcp-servers: up to 50 entries of one status, and how many there are of each */
type AdminList = { data: AdminServer[]; counts: { pending: number; approved: number } };

export async function loader({ context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/admin/mcp-servers");
  if (!context.viewer.isAdmin) throw redirect("/servers");
  const [pending, approved, sync] = await Promise.all([
    context.api<AdminList>("GET", "/api/admin/mcp-servers?status=pending"),
    context.api<AdminList>("GET", "/api/admin/mcp-servers?status=approved"),
    context.api<SyncStatus>("GET", "/api/admin/registry-sync"),
  ]);
  if (!pending.ok || !approved.ok) throw new Error("The review queue could not be read");
  const { layer, complete, notes, guarantees } = context.sandbox;
  return {
    pending: pending.data.data,
    approved: approved.data.data,
    counts: pending.data.counts,
    sandbox: { layer, complete, notes, guarantees },
    sandboxPolicy: context.config.SANDBOX_INCOMPLETE,
    sync: sync.ok ? sync.data : null,
  };
}

const FAILED: Record<AdminIntent, string> = {
  approve: ADMIN_TEXT.approveFailed,
  reject: ADMIN_TEXT.rejectFailed,
  unapprove: ADMIN_TEXT.unapproveFailed,
  "accept-tools": ADMIN_TEXT.acceptToolsFailed,
  check: CHECK_TEXT.checkFailedAction,
  sync: SYNC_TEXT.failedAction,
  "take-upstream": SYNC_TEXT.takeUpstreamFailed,
  edit: SYNC_TEXT.editFailed,
};
/** Refusals that say something the admin can act on (it cannot run here, one runs already, a field or a reason is wrong). */
const SAYS_WHY = new Set<AdminIntent>(["check", "sync", "take-upstream", "edit", "reject"]);

/** The API call an intent makes. */
function callFor(context: Route.ActionArgs["context"], intent: AdminIntent, id: string, form: FormData) {
  const path = `/api/admin/mcp-servers/${encodeURIComponent(id)}`;
  if (intent === "reject") return context.api("DELETE", path, { reason: field(form, "reason") || undefined });
  if (intent === "sync") return context.api("POST", "/api/admin/registry-sync", {});
  if (intent === "edit")
    return context.api("PUT", path, {
      name: field(form, "name"),
      description: field(form, "description"),
      category: field(form, "category"),
      tags: field(form, "tags")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    });
  return context.api("POST", `${path}/${intent}`, {});
}

// Approve, Reject, Unapprove and Accept tools: the admin API's calls. Without JavaScript a success
// comes back to this page (its lists are read again); with it, the lists are read again in place.
export async function action({ context, request }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/admin/mcp-servers");
  if (!context.viewer.isAdmin) throw redirect("/servers");
  const form = await request.formData();
  const id = field(form, "id");
  const intent = field(form, "intent") as AdminIntent;
  if (!(intent in FAILED)) return { id, error: ADMIN_TEXT.approveFailed } satisfies AdminAnswer;
  const r = await callFor(context, intent, id, form);
  if (!r.ok)
    return {
      id,
      error: SAYS_WHY.has(intent) && r.status >= 400 && r.status < 500 && r.error ? r.error : FAILED[intent],
    } satisfies AdminAnswer;
  if (!isEnhanced(form)) throw redirect("/admin/mcp-servers", 303);
  return { id } satisfies AdminAnswer;
}

export default function Admin({ loaderData }: Route.ComponentProps) {
  const hydrated = useHydrated();
  const { pending, approved, counts } = loaderData;
  // While a check runs, the page reads the lists again every few seconds (its listing arrives).
  const revalidator = useRevalidator();
  const checking = [...pending, ...approved].some((s) => s.check?.status === "checking") || loaderData.sync?.status === "running";
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
      {loaderData.sync && <RegistrySyncCard sync={loaderData.sync} />}
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
        <Tabs
          label="Submissions"
          defaultValue="pending"
          className="mt-6"
          listClassName="flex gap-2 border-b border-slate-200 dark:border-slate-800"
          tabClassName={tab}
          panelClassName="mt-6"
          tabs={[
            { value: "pending", label: ADMIN_TEXT.pendingTab(counts.pending), panel: pendingList },
            { value: "approved", label: ADMIN_TEXT.approvedTab(counts.approved), panel: approvedList },
          ]}
        />
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
