import { Layers } from "~/web/components/icons";
import { useRef, useState } from "react";
import { data, Link, redirect } from "react-router";
import { myDeploymentTools } from "../../server/features/deployments/service";
import type { DeploymentView } from "../../shared/deployments";
import { statusLabel } from "../../shared/deployments";
import { defaultPrefix, TOOLSET_TEXT, toolsetInput, type ToolsetView } from "../../shared/toolsets";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { HostedNotFound, HostedServerPage, SaveFooter } from "../components/hosted/HostedServerPage";
import { serverCard } from "../components/ServerParts";
import { canBeMember, membersFromForm, ToolsetMembers } from "../components/ToolsetMembers";
import { Button, buttonClass } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { deploymentAction } from "../lib/deploy.server";
import { Enhanced, useActionForm, useHydrated } from "../lib/forms";
import { useDeployment } from "../lib/use-deployment";
import { formMessage } from "../lib/validation";
import type { Route } from "./+types/toolset";
import { serverPageData } from "./server-page.server";
import { toolsetPath } from "./toolsets";

// One toolset (docs/product.md#toolsets): what a server page shows a deployment's owner (status,
// URL, restart, definitions, playground, request log, tool selection) for the toolset's combined
// server, and its members, which its owner can change. Only its owner ever sees it.

/** The viewer's toolset of that name, or their organisation's (`?as=slug`). */
async function own(context: Route.LoaderArgs["context"], name: string, url: URL): Promise<ToolsetView> {
  const as = (url.searchParams.get("as") ?? "").toLowerCase();
  const r = await context.api<ToolsetView[]>("GET", "/api/toolsets");
  const found = r.ok ? r.data.find((ts) => ts.name === name && (ts.org?.slug ?? "") === as) : undefined;
  if (!found) throw data({ name }, { status: 404 });
  return found;
}

export async function loader({ params, context, url }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/toolsets/${params.name}`)}`);
  const toolset = await own(context, params.name, url);
  const [page, ownTools, mine] = await Promise.all([
    serverPageData(context, url, { kind: "toolset", ref: toolset.name }, true, toolset.id),
    myDeploymentTools(context.db, context.viewer, toolset.id),
    context.api<DeploymentView[]>("GET", "/api/deployments"),
  ]);
  return {
    ...page,
    toolset,
    ownTools,
    candidates: mine.ok ? mine.data.filter((d) => canBeMember(d) && d.org?.slug === toolset.org?.slug) : [],
  };
}

type MembersAnswer = {
  form: "members";
  error?: string;
  message?: string;
  /** the members this save would remove: asked first (the choice posted, to show it again) */
  confirmRemoval?: { names: string[]; chosen: [string, string][] };
};

// Save members posts here; Remove, Restart and the exposed tools too, as on a server's page.
export async function action({ params, context, request, url }: Route.ActionArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/toolsets/${params.name}`)}`);
  const form = await request.clone().formData();
  if (field(form, "intent") !== "members")
    return deploymentAction(context, request, url, { id: params.name, requiredKeys: [], repositoryUrl: null, npxCommand: null });
  const current = await own(context, params.name, url);
  // The tools chosen per member (through the API) stay with the members that stay.
  const members = membersFromForm(form).map((m) => {
    const was = current.members.find((x) => x.deployment_id === m.deployment_id);
    return was?.tools ? { ...m, tools: was.tools } : m;
  });
  const input = toolsetInput.safeParse({ name: current.name, members });
  if (!input.success) return data({ form: "members", error: formMessage(input.error) } satisfies MembersAnswer);
  // Removing members takes their tools from every client of the toolset: asked first.
  const removed = current.members.filter((m) => !members.some((x) => x.deployment_id === m.deployment_id));
  if (removed.length > 0 && field(form, "confirmRemove") !== "1")
    return data({
      form: "members",
      confirmRemoval: { names: removed.map((m) => m.name), chosen: members.map((m) => [m.deployment_id, m.prefix ?? ""]) },
    } satisfies MembersAnswer);
  const r = await context.api("PUT", `/api/toolsets/${current.id}`, input.data, { timeoutMs: 30_000 });
  if (!r.ok) return data({ form: "members", error: r.error ?? TOOLSET_TEXT.notFound } satisfies MembersAnswer);
  return isEnhanced(form)
    ? data({ form: "members", message: TOOLSET_TEXT.saved } satisfies MembersAnswer)
    : redirect(`/toolsets/${encodeURIComponent(params.name)}${url.search}`, 303);
}

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d ? `${d.toolset.name} · ${TOOLSET_TEXT.title}` : TOOLSET_TEXT.notFound }, { name: "robots", content: "noindex" }];
}

export function ErrorBoundary() {
  return <HostedNotFound back="/toolsets" title={TOOLSET_TEXT.title} notFound={TOOLSET_TEXT.notFound} />;
}

export default function ToolsetPage({ loaderData }: Route.ComponentProps) {
  const { toolset, signedIn, ownTools, candidates } = loaderData;
  const deployment = useDeployment(toolset.name, signedIn, toolset, `/api/toolsets/${toolset.id}`);
  return (
    <HostedServerPage
      back="/toolsets"
      icon={Layers}
      name={toolset.name}
      texts={TOOLSET_TEXT}
      deployment={deployment}
      signedIn={signedIn}
      ownTools={ownTools}
      page={loaderData}
      header={
        <ul className="mt-2 flex flex-wrap gap-2 text-sm" aria-label={TOOLSET_TEXT.membersTitle}>
          {toolset.members.map((m) => (
            <li
              key={m.deployment_id}
              className="max-w-full break-words rounded-2xl border border-slate-200 px-3 py-0.5 dark:border-slate-800"
            >
              <span className="font-mono">{m.prefix}_</span> → <span data-testid="toolset-member-name">{m.name}</span>
              <span className="text-slate-600 dark:text-slate-400"> · {m.status ? statusLabel(m.status) : TOOLSET_TEXT.memberGone}</span>
            </li>
          ))}
        </ul>
      }
      aside={
        // A member of the organisation that owns it, without the right to change it, uses it as it is.
        deployment.deployment &&
        (toolset.org?.manage ?? true) && <EditMembers toolset={toolset} candidates={candidates} card={serverCard} />
      }
    />
  );
}

const inPlaceClass = "space-y-3 rounded-xl border border-slate-200 p-4 text-sm dark:border-slate-800";

/** The toolset's members and prefixes (a form: it works without JavaScript); saving restarts it in place. */
function EditMembers({ toolset, candidates, card }: { toolset: ToolsetView; candidates: DeploymentView[]; card: string }) {
  const { fetcher, answer, busy } = useActionForm<MembersAnswer>("members");
  const hydrated = useHydrated();
  const formRef = useRef<HTMLFormElement>(null);
  const [dismissed, setDismissed] = useState<MembersAnswer | null>(null);
  const asking = answer?.confirmRemoval && answer !== dismissed ? answer.confirmRemoval : null;
  // Asked to confirm, the form shows the choice that was posted (without scripts the page is new).
  const posted = answer?.confirmRemoval?.chosen.map(([id, prefix]): [string, string] => [
    id,
    prefix || defaultPrefix(candidates.find((c) => c.id === id)?.server_id ?? ""),
  ]);
  const chosen = new Map(posted ?? toolset.members.map((m) => [m.deployment_id, m.prefix]));
  const confirm = () => {
    if (!formRef.current) return;
    const form = new FormData(formRef.current);
    form.set("confirmRemove", "1");
    setDismissed(answer ?? null);
    void fetcher.submit(form, { method: "post" });
  };
  return (
    <section className={card} aria-labelledby="edit-members">
      <h2 id="edit-members" className="flex items-center gap-2 text-lg font-semibold">
        <Layers className="h-5 w-5 text-indigo-500" aria-hidden /> {TOOLSET_TEXT.membersTitle}
      </h2>
      <fetcher.Form method="post" className="mt-3 space-y-3" ref={formRef}>
        <Enhanced />
        <input type="hidden" name="intent" value="members" />
        <ToolsetMembers candidates={candidates} chosen={chosen} legend={false} />
        {asking && !hydrated && (
          // Without scripts the question is asked in place, above the same choice.
          <div role="group" aria-label={TOOLSET_TEXT.removeMembersTitle(asking.names.length)} className={inPlaceClass}>
            <p className="font-semibold">{TOOLSET_TEXT.removeMembersTitle(asking.names.length)}</p>
            <p className="text-slate-600 dark:text-slate-300">{TOOLSET_TEXT.removeMembersText(asking.names)}</p>
            <div className="flex flex-wrap justify-end gap-3">
              <Link to={toolsetPath(toolset)} className={buttonClass("secondary", "sm")}>
                {TOOLSET_TEXT.cancel}
              </Link>
              <Button type="submit" name="confirmRemove" value="1" variant="danger" size="sm">
                {TOOLSET_TEXT.removeMembersConfirm}
              </Button>
            </div>
          </div>
        )}
        <ConfirmDialog
          open={Boolean(asking) && hydrated}
          onOpenChange={(open) => !open && setDismissed(answer ?? null)}
          title={asking ? TOOLSET_TEXT.removeMembersTitle(asking.names.length) : ""}
          description={asking ? TOOLSET_TEXT.removeMembersText(asking.names) : ""}
          confirmLabel={TOOLSET_TEXT.removeMembersConfirm}
          cancelLabel={TOOLSET_TEXT.cancel}
          onConfirm={confirm}
        />
        <SaveFooter answer={answer} busy={busy} label={TOOLSET_TEXT.save} />
      </fetcher.Form>
    </section>
  );
}
