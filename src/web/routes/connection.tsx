import { ArrowLeft, Plug } from "lucide-react";
import { data, Link, redirect } from "react-router";
import { myDeploymentTools } from "../../server/features/deployments/service";
import { CONNECTION_TEXT, type ConnectionView } from "../../shared/connections";
import { DeploymentPanel } from "../components/DeploymentPanel";
import { OwnerCards } from "../components/server/OwnerCards";
import { serverCard } from "../components/ServerParts";
import { ToolsList } from "../components/ToolsList";
import { buttonClass, linkClass } from "../components/ui";
import { deploymentAction } from "../lib/deploy.server";
import { useDeployment } from "../lib/use-deployment";
import type { Route } from "./+types/connection";
import { serverPageData } from "./server-page.server";

// A connection its owner made by URL (docs/product.md#connections): what a server page shows a
// deployment's owner (status, URL, restart, output, definitions to review, playground, request
// log, tool selection), for the remote server behind it. Only its owner ever sees it.

async function own(context: Route.LoaderArgs["context"], name: string): Promise<ConnectionView> {
  const r = await context.api<ConnectionView[]>("GET", "/api/connections");
  const found = r.ok ? r.data.find((c) => c.entry === null && c.name === name) : undefined;
  if (!found) throw data({ name }, { status: 404 });
  return found;
}

export async function loader({ params, context, request }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/connections/${params.name}`)}`);
  const connection = await own(context, params.name);
  const [page, ownTools] = await Promise.all([
    serverPageData(context, request, { kind: "remote", ref: connection.name }, true),
    myDeploymentTools(context.db, context.viewer, connection.id),
  ]);
  return { ...page, connection, ownTools };
}

// Stop (remove), Restart and the exposed tools post here, as on a server's page.
export async function action({ params, context, request }: Route.ActionArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/connections/${params.name}`)}`);
  return deploymentAction(context, request, { id: params.name, requiredKeys: [], repositoryUrl: null, npxCommand: null });
}

export function meta({ data: d }: Route.MetaArgs) {
  return [
    { title: d ? `${d.connection.name} · ${CONNECTION_TEXT.title}` : CONNECTION_TEXT.notFound },
    { name: "robots", content: "noindex" },
  ];
}

export function ErrorBoundary() {
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-3xl font-bold">{CONNECTION_TEXT.notFound}</h1>
      <Link to="/connections" className={`mt-8 ${buttonClass("primary")}`}>
        <ArrowLeft className="h-4 w-4" aria-hidden /> {CONNECTION_TEXT.title}
      </Link>
    </section>
  );
}

export default function ConnectionPage({ loaderData }: Route.ComponentProps) {
  const { connection, signedIn, ownTools } = loaderData;
  const deployment = useDeployment(connection.name, signedIn, connection, `/api/connections/${connection.id}`);
  const card = serverCard;
  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6">
      <Link to="/connections" className={`${linkClass} inline-flex items-center gap-1 text-sm`}>
        <ArrowLeft className="h-4 w-4" aria-hidden /> {CONNECTION_TEXT.title}
      </Link>
      <header className="mt-4">
        <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
          <Plug className="h-7 w-7 text-indigo-500" aria-hidden /> {connection.name}
        </h1>
        <p className="mt-1 break-all font-mono text-sm text-slate-600 dark:text-slate-400">
          {connection.remote_url} ({connection.transport === "sse" ? "SSE" : "Streamable HTTP"})
        </p>
        {connection.header_names.length > 0 && (
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{CONNECTION_TEXT.sends(connection.header_names)}</p>
        )}
      </header>
      <div className="mt-8 grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <OwnerCards
            deployment={deployment}
            owner={signedIn}
            tools={ownTools?.tools ?? []}
            gatewayTimeoutMs={loaderData.gatewayTimeoutMs}
            card={card}
          />
          <ToolsList
            tools={ownTools?.tools ?? []}
            listedAt={ownTools?.listedAt ?? null}
            className={card}
            stats={loaderData.toolStats}
            own
            empty={CONNECTION_TEXT.noTools}
          />
        </div>
        <aside className="order-first min-w-0 space-y-6 lg:order-none">
          <section className={card} aria-labelledby="deployment">
            <h2 id="deployment" className="flex items-center gap-2 text-lg font-semibold">
              <Plug className="h-5 w-5 text-indigo-500" aria-hidden /> {CONNECTION_TEXT.panelTitle}
            </h2>
            <DeploymentPanel
              serverId={connection.name}
              requiredKeys={[]}
              signedIn={signedIn}
              hostingOpen
              canDeploy
              hasSource
              unavailable={CONNECTION_TEXT.gone}
              state={deployment}
            />
          </section>
        </aside>
      </div>
    </div>
  );
}
