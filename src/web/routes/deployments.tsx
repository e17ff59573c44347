import { ExternalLink, KeyRound, Loader2, Rocket, RotateCw, Square } from "~/web/components/icons";
import { data, Link, redirect, useFetcher } from "react-router";
import { withdrawnEntries } from "../../server/features/catalog/service";
import { keysAsked, planUsage } from "../../server/features/deployments/service";
import { lastRequests } from "../../server/features/request-log/service";
import { SYNC_TEXT } from "../../shared/catalog-sync";
import { DEPLOY_TEXT, statusLabel, type DeploymentView } from "../../shared/deployments";
import { ORG_TEXT } from "../../shared/orgs";
import { ConfirmButton } from "../components/ConfirmButton";
import { CopyButton } from "../components/CopyButton";
import { Alert, Button, buttonClass, linkClass } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { dateTime, longDate, timeAgo } from "../lib/dates";
import { Enhanced } from "../lib/forms";
import type { Route } from "./+types/deployments";

// 'My deployments' (docs/product.md#my-deployments): every deployment of the signed-in user, with
// its status, server, URL, when it was made, its last request and restarts, to open or stop.

export const MY_DEPLOYMENTS_TEXT = {
  title: "My deployments",
  intro: "Every server you deployed, wherever you deployed it from.",
  empty: "You have no deployments yet.",
  browse: "Browse servers",
  lastRequest: "Last request",
  noRequest: "No requests yet",
  open: "Open",
  /** A plan counts what is kept and what is awake, never deploy actions (docs/product.md#deploy-limits). */
  usage: (u: { plan: string; running: number; maxRunning: number; kept: number; maxKept: number | null }) =>
    `${u.plan} plan: ${u.running} of ${u.maxRunning} awake${u.maxKept === null ? (u.kept > u.running ? `, ${u.kept - u.running} sleeping` : "") : `, ${u.kept} of ${u.maxKept} kept`}. Idle deployments sleep and wake on their next request; a wake beyond your awake limit puts your least recently used idle one to sleep. Stopping and deploying again keeps a server's URL.`,
  plans: "Plans",
  connections: "Remote servers you connected (from a catalogue page or by URL) are on",
} as const;

export function meta() {
  return [{ title: MY_DEPLOYMENTS_TEXT.title }, { name: "robots", content: "noindex" }];
}

/** A deployment's server page: a catalogue entry's id, or an owned server's owner/name. */
export const serverPath = (serverId: string) =>
  serverId.includes("/") ? `/server/${serverId}` : `/server/${encodeURIComponent(serverId)}`;

export async function loader({ context }: Route.LoaderArgs) {
  const v = context.viewer;
  if (!v) throw redirect("/login?redirect=/deployments");
  const r = await context.api<DeploymentView[]>("GET", "/api/deployments");
  // Connections (remote servers) and toolsets have their own pages.
  const deployments = r.ok ? r.data.filter((d) => !d.source.startsWith("remote:") && !d.source.startsWith("toolset:")) : [];
  const [last, keys, usage, withdrawn] = await Promise.all([
    lastRequests(
      context.db,
      v,
      deployments.map((d) => d.id),
    ),
    keysAsked(context.db, v),
    planUsage(context, v),
    withdrawnEntries(
      context.db,
      deployments.map((d) => d.server_id),
    ),
  ]);
  return { deployments, last, keys, usage, withdrawn, loadFailed: !r.ok, now: Date.now() };
}

type Answer = { error?: string; message?: string };

export async function action({ request, context }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/deployments");
  const form = await request.formData();
  const intent = field(form, "intent");
  const id = encodeURIComponent(field(form, "deployment"));
  let r;
  if (intent === "stop") r = await context.api("DELETE", `/api/deployments/${id}`);
  else if (intent === "restart") r = await context.api("POST", `/api/deployments/${id}/restart`, undefined, { timeoutMs: 30_000 });
  else return data({ error: "Unknown action" } satisfies Answer, { status: 400 });
  if (!r.ok)
    return data({
      error:
        r.error ??
        (intent === "stop" ? (r.status ? DEPLOY_TEXT.undeployFailed : DEPLOY_TEXT.undeployFailedDefault) : DEPLOY_TEXT.restartFailed),
    } satisfies Answer);
  // Without JavaScript the list is shown again (post/redirect/get); with it, the page reloads its data.
  return isEnhanced(form)
    ? data({ message: intent === "stop" ? DEPLOY_TEXT.stopped : DEPLOY_TEXT.restarted } satisfies Answer)
    : redirect("/deployments", 303);
}

export default function Deployments({ loaderData }: Route.ComponentProps) {
  const { deployments, last, keys, usage, withdrawn, loadFailed, now } = loaderData;
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <h1 className="text-2xl font-bold">{MY_DEPLOYMENTS_TEXT.title}</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">{MY_DEPLOYMENTS_TEXT.intro}</p>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400" data-testid="plan-usage">
        {MY_DEPLOYMENTS_TEXT.usage(usage)}{" "}
        <Link to="/subscription" className={linkClass}>
          {MY_DEPLOYMENTS_TEXT.plans}
        </Link>
      </p>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
        {MY_DEPLOYMENTS_TEXT.connections}{" "}
        <Link to="/connections" className={linkClass}>
          Connections
        </Link>
        .
      </p>
      {loadFailed && (
        <div className="mt-4">
          <Alert kind="error">Failed to load your deployments. Please try again later.</Alert>
        </div>
      )}
      {deployments.length === 0 && !loadFailed ? (
        <div className="mt-6 rounded-xl border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
          <p className="text-slate-600 dark:text-slate-400">{MY_DEPLOYMENTS_TEXT.empty}</p>
          <Link to="/servers" className={`${buttonClass("primary")} mt-4`}>
            <Rocket className="h-4 w-4" aria-hidden /> {MY_DEPLOYMENTS_TEXT.browse}
          </Link>
        </div>
      ) : (
        <ul className="mt-6 space-y-3" data-testid="my-deployments">
          {deployments.map((d) => (
            <DeploymentRow
              key={d.id}
              d={d}
              lastAt={last[d.id]}
              now={now}
              hasKeys={(keys[d.id] ?? 0) > 0}
              withdrawn={withdrawn.includes(d.server_id)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function DeploymentRow({
  d,
  lastAt,
  now,
  hasKeys,
  withdrawn,
}: {
  d: DeploymentView;
  lastAt: string | undefined;
  now: number;
  hasKeys: boolean;
  withdrawn: boolean;
}) {
  const fetcher = useFetcher<Answer>();
  const pending = fetcher.state !== "idle" ? String(fetcher.formData?.get("intent") ?? "") : null;
  const running = d.status === "running";
  // An organisation's deployment opens as the organisation on its server's page; its members use it, its admins change it.
  const page = d.org ? `${serverPath(d.server_id)}?as=${encodeURIComponent(d.org.slug)}` : serverPath(d.server_id);
  const manages = d.org ? d.org.manage : true;
  return (
    <li className="rounded-xl border border-slate-200 p-4 dark:border-slate-800" data-testid="my-deployment">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <Link to={page} className={`${linkClass} break-all font-mono`}>
            {d.server_id}
          </Link>
          {d.org && (
            <p className="mt-1 text-xs font-medium text-indigo-800 dark:text-indigo-300" data-testid="my-deployment-org">
              {ORG_TEXT.ownedBy(d.org.name)}
            </p>
          )}
          <p className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
            <span className="flex items-center gap-1.5 font-medium">
              <span
                className={`inline-block h-2.5 w-2.5 rounded-full ${running ? "bg-green-500" : d.status === "sleeping" ? "bg-sky-400" : "bg-yellow-400"}`}
                aria-hidden
              />
              <span data-testid="my-deployment-status">{statusLabel(d.status)}</span>
            </span>
            <span className="text-slate-600 dark:text-slate-400">
              · Created{" "}
              <time dateTime={d.created_at} title={dateTime(d.created_at)}>
                {longDate(d.created_at)}
              </time>{" "}
              · {MY_DEPLOYMENTS_TEXT.lastRequest}:{" "}
              {lastAt ? (
                <time dateTime={lastAt} title={dateTime(lastAt)}>
                  {timeAgo(lastAt, now)}
                </time>
              ) : (
                MY_DEPLOYMENTS_TEXT.noRequest
              )}
              {d.restarts > 0 ? ` · restarted ${d.restarts}×` : ""}
            </span>
          </p>
          <p className="mt-1 break-all text-xs text-slate-600 dark:text-slate-400">{d.source}</p>
          {withdrawn && (
            <p className="mt-1 text-xs font-medium text-amber-800 dark:text-amber-300" data-testid="entry-withdrawn">
              {SYNC_TEXT.withdrawnDeployment}
            </p>
          )}
        </div>
        <div className="flex flex-wrap gap-2">
          <Link to={page} className={buttonClass("secondary", "sm")}>
            <ExternalLink className="h-4 w-4" aria-hidden /> {MY_DEPLOYMENTS_TEXT.open}
          </Link>
          {hasKeys && manages && (
            <Link to={`${page}${d.org ? "&" : "?"}edit=keys#deployment`} className={buttonClass("secondary", "sm")}>
              <KeyRound className="h-4 w-4" aria-hidden /> {DEPLOY_TEXT.editKeys}
            </Link>
          )}
          {manages && (
            <>
              <fetcher.Form method="post">
                <input type="hidden" name="intent" value="restart" />
                <input type="hidden" name="deployment" value={d.id} />
                <Enhanced />
                <Button type="submit" variant="secondary" size="sm" disabled={pending !== null}>
                  <RotateCw className={`h-4 w-4 ${pending === "restart" ? "animate-spin" : ""}`} aria-hidden />
                  {pending === "restart" ? DEPLOY_TEXT.restarting : DEPLOY_TEXT.restart}
                </Button>
              </fetcher.Form>
              <fetcher.Form method="post">
                <input type="hidden" name="intent" value="stop" />
                <input type="hidden" name="deployment" value={d.id} />
                <Enhanced />
                <ConfirmButton
                  label={
                    <>
                      <Square className="h-4 w-4" aria-hidden /> {DEPLOY_TEXT.stop}
                      <span className="sr-only"> {d.server_id}</span>
                    </>
                  }
                  busy={pending === "stop"}
                  busyLabel={
                    <>
                      <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> {DEPLOY_TEXT.stopping}
                    </>
                  }
                  disabled={pending !== null}
                  title={DEPLOY_TEXT.stopTitle(d.server_id)}
                  description={DEPLOY_TEXT.stopText}
                  confirmLabel={DEPLOY_TEXT.stop}
                  cancelLabel={DEPLOY_TEXT.cancel}
                />
              </fetcher.Form>
            </>
          )}
        </div>
      </div>
      <div className="mt-3 flex items-center gap-2">
        <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-950" title={d.url}>
          {d.url}
        </code>
        <CopyButton text={d.url} />
      </div>
      {d.status_detail && !running && (
        <pre
          tabIndex={0}
          className="mt-2 max-h-32 overflow-auto whitespace-pre-wrap rounded-md bg-amber-50 p-2 text-xs text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
        >
          {d.status_detail}
        </pre>
      )}
      {fetcher.data?.message && fetcher.state === "idle" && !fetcher.data.error && (
        <p role="status" className="mt-2 text-sm text-green-700 dark:text-green-400">
          {fetcher.data.message}
        </p>
      )}
      {fetcher.data?.error && (
        <div className="mt-2">
          <Alert kind="error">{fetcher.data.error}</Alert>
        </div>
      )}
    </li>
  );
}
