import { Layers, Loader2 } from "~/web/components/icons";
import { data, Link, redirect, useFetcher } from "react-router";
import type { DeploymentView } from "../../shared/deployments";
import { statusLabel } from "../../shared/deployments";
import { TOOLSET_TEXT, toolsetInput, type ToolsetView } from "../../shared/toolsets";
import { ORG_TEXT } from "../../shared/orgs";
import { OwnedBy, RowActions, RowError, RowList, RowStatus, RowUrl } from "../components/hosted/HostedRow";
import { OwnerSwitch } from "../components/OwnerSwitch";
import { canBeMember, membersFromForm, ToolsetMembers } from "../components/ToolsetMembers";
import { Alert, Button, Field, formLegend, formSection, inputClass, linkClass } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { Enhanced, useActionForm } from "../lib/forms";
import { formMessage } from "../lib/validation";
import type { Route } from "./+types/toolsets";
import { ownerChoice } from "./server-page.server";

// Toolsets (docs/product.md#toolsets): several of the user's deployments and connections behind
// one URL. Make one here from the servers the user runs or connects, see each one's members,
// status and URL, open it, remove it. As an organisation (the owner switch), from its own.

/** A toolset's own page; an organisation's opens as the organisation. */
export const toolsetPath = (ts: Pick<ToolsetView, "name" | "org">) =>
  `/toolsets/${encodeURIComponent(ts.name)}${ts.org ? `?as=${encodeURIComponent(ts.org.slug)}` : ""}`;

export function meta() {
  return [{ title: TOOLSET_TEXT.title }, { name: "robots", content: "noindex" }];
}

export async function loader({ context, url }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/toolsets");
  const [sets, mine, owners] = await Promise.all([
    context.api<ToolsetView[]>("GET", "/api/toolsets"),
    context.api<DeploymentView[]>("GET", "/api/deployments"),
    ownerChoice(context, url, true),
  ]);
  return {
    toolsets: sets.ok ? sets.data : [],
    // A toolset's members are its owner's own: an organisation's are the organisation's.
    candidates: mine.ok ? mine.data.filter((d) => canBeMember(d) && (d.org?.slug ?? "") === owners.as) : [],
    loadFailed: !sets.ok || !mine.ok,
    owners,
  };
}

type Answer = { form: "create" | "remove"; error?: string; message?: string };

export async function action({ request, context }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/toolsets");
  const form = await request.formData();
  const owner = field(form, "owner");
  const back = owner ? `/toolsets?as=${encodeURIComponent(owner)}` : "/toolsets";
  const done = (a: Answer) => (!a.error && !isEnhanced(form) ? redirect(back, 303) : data(a));
  if (field(form, "intent") === "remove") {
    const r = await context.api("DELETE", `/api/toolsets/${encodeURIComponent(field(form, "toolset"))}`);
    return done(r.ok ? { form: "remove", message: TOOLSET_TEXT.removed } : { form: "remove", error: r.error ?? TOOLSET_TEXT.notFound });
  }
  const input = toolsetInput.safeParse({ owner: owner || undefined, name: field(form, "name").trim(), members: membersFromForm(form) });
  if (!input.success) return data({ form: "create", error: formMessage(input.error) } satisfies Answer);
  const r = await context.api("POST", "/api/toolsets", input.data, { timeoutMs: 30_000 });
  return done(r.ok ? { form: "create", message: TOOLSET_TEXT.created } : { form: "create", error: r.error ?? TOOLSET_TEXT.notFound });
}

export default function Toolsets({ loaderData }: Route.ComponentProps) {
  const { toolsets, candidates, loadFailed, owners } = loaderData;
  const { fetcher, answer, busy } = useActionForm<Answer>("create");
  const error = answer?.form === "create" ? answer.error : undefined;
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <h1 className="flex items-center gap-2 text-2xl font-bold">
        <Layers className="h-6 w-6 text-indigo-500" aria-hidden /> {TOOLSET_TEXT.title}
      </h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">{TOOLSET_TEXT.intro}</p>

      <fetcher.Form
        method="post"
        className={`${formSection} mt-6`}
        key={`${owners.as}:${answer?.message ?? "new"}`}
        aria-labelledby="new-toolset"
      >
        <h2 id="new-toolset" className={formLegend}>
          {TOOLSET_TEXT.create}
        </h2>
        <Enhanced />
        <input type="hidden" name="intent" value="create" />
        <input type="hidden" name="owner" value={owners.as} />
        <OwnerSwitch choice={owners} path="/toolsets" label={ORG_TEXT.makeAs} hint={ORG_TEXT.makeAsHint} />
        <Field id="toolset-name" label={TOOLSET_TEXT.nameLabel} hint={TOOLSET_TEXT.nameHint}>
          <input
            id="toolset-name"
            name="name"
            required
            maxLength={40}
            pattern="[a-z0-9][a-z0-9\-]{0,39}"
            className={inputClass}
            autoComplete="off"
            aria-describedby="toolset-name-hint"
          />
        </Field>
        <ToolsetMembers candidates={candidates} />
        {error && <Alert kind="error">{error}</Alert>}
        {answer?.form === "create" && answer.message && !error && (
          <p role="status" className="text-sm text-green-700 dark:text-green-400">
            {answer.message}
          </p>
        )}
        <Button type="submit" disabled={busy || candidates.length === 0}>
          {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Layers className="h-4 w-4" aria-hidden />}
          {busy ? TOOLSET_TEXT.creating : TOOLSET_TEXT.create}
        </Button>
      </fetcher.Form>

      <RowList loadFailed={loadFailed} texts={TOOLSET_TEXT} testId="toolsets">
        {toolsets.map((ts) => (
          <ToolsetRow key={ts.id} ts={ts} />
        ))}
      </RowList>
    </section>
  );
}

function ToolsetRow({ ts }: { ts: ToolsetView }) {
  const fetcher = useFetcher<Answer>();
  const running = ts.status === "running";
  const path = toolsetPath(ts);
  return (
    <li className="rounded-xl border border-slate-200 p-4 dark:border-slate-800" data-testid="toolset">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <Link to={path} className={`${linkClass} break-all font-mono`}>
            {ts.name}
          </Link>
          <OwnedBy org={ts.org} />
          <RowStatus running={running} testId="toolset-status" status={statusLabel(ts.status)} createdAt={ts.created_at} />
          <p className="mt-1 break-words text-xs text-slate-600 dark:text-slate-400">
            {ts.members.map((m) => `${m.prefix}_ → ${m.name}`).join(" · ")}
          </p>
        </div>
        <RowActions
          manage={ts.org?.manage ?? true}
          path={path}
          fetcher={fetcher}
          field="toolset"
          id={ts.id}
          name={ts.name}
          texts={{
            label: TOOLSET_TEXT.remove,
            title: TOOLSET_TEXT.removeTitle(ts.name),
            description: TOOLSET_TEXT.removeText,
            cancel: TOOLSET_TEXT.cancel,
          }}
        />
      </div>
      <RowUrl url={ts.url} />
      <RowError error={fetcher.data?.error} />
    </li>
  );
}
