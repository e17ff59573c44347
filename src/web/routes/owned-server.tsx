import { Activity, Building2, Pencil, User } from "~/web/components/icons";
import { ORG_TEXT } from "../../shared/orgs";
import { data, Link } from "react-router";
import { getPublicOwnedServer, managesServer, usesServer } from "../../server/features/publishers/service";
import { DeploymentPanel } from "../components/DeploymentPanel";
import { OwnerSwitch } from "../components/OwnerSwitch";
import { ToolsList } from "../components/ToolsList";
import { CopyButton } from "../components/CopyButton";
import { Markdown } from "../components/Markdown";
import { buttonClass } from "../components/ui";
import { ServerFacts, ServerNotFound, serverCard, serverMeta, VisitServerButton } from "../components/ServerParts";
import { DeploymentCard, ServerInfoCard, ServerPageLayout } from "../components/server/ServerPageLayout";
import { deploymentAction } from "../lib/deploy.server";
import { serverPageHeaders, takeNewKey } from "../lib/new-key-flash.server";
import { useNewKey } from "../lib/use-new-key";
import { useDeployment } from "../lib/use-deployment";
import type { Route } from "./+types/owned-server";
import { serverPageData } from "./server-page.server";
import { OwnerCards } from "../components/server/OwnerCards";
import { DocsHint } from "../components/server/ConnectSection";
import { SignInLinks } from "../components/SignInLinks";

export async function loader({ params, context, url, request }: Route.LoaderArgs) {
  const server = await getPublicOwnedServer(context.db, `${params.owner}/${params.name}`);
  if (!server) throw data({ qualifiedName: `${params.owner}/${params.name}` }, { status: 404 });
  // Only its owner can deploy it (an organisation's: those who may change what it owns); its tool
  // figures are its owner's usage, theirs alone to see (an organisation's members see them).
  const [isOwner, uses] = await Promise.all([
    managesServer(context.db, context.viewer, server.owner.id),
    usesServer(context.db, context.viewer, server.owner.id),
  ]);
  // An organisation's server runs as the organisation only: its page is about the organisation's deployment.
  const about = new URL(url);
  if (server.owner.org) about.searchParams.set("as", server.owner.org.slug);
  const page = await serverPageData(context, about, { kind: "owned", ref: server.qualifiedName }, uses);
  // A key its owner just made from this page for it: filled into its snippets this once.
  const flash = await takeNewKey(context, request, server.qualifiedName);
  return data({ ...page, server, isOwner, uses, newKey: flash.newKey }, { headers: flash.headers });
}

// Deploy, Stop Server and the exposed tools post here (they work without JavaScript); the API checks ownership.
export async function action({ params, context, request, url }: Route.ActionArgs) {
  const server = await getPublicOwnedServer(context.db, `${params.owner}/${params.name}`);
  if (!server) throw data({ qualifiedName: `${params.owner}/${params.name}` }, { status: 404 });
  return deploymentAction(context, request, url, {
    id: server.qualifiedName,
    requiredKeys: server.required_keys,
    repositoryUrl: server.repositoryUrl,
    npxCommand: null,
  });
}

// Kept out of caches when it shows a new key.
export const headers = serverPageHeaders;

export function meta({ data: d }: Route.MetaArgs) {
  return serverMeta(d && { name: d.server.displayName, description: d.server.description, site: d.site });
}

const card = serverCard;

export function ErrorBoundary() {
  return <ServerNotFound />;
}

export default function OwnedServerPage({ loaderData }: Route.ComponentProps) {
  const { server, isOwner, uses, signedIn, hosting } = loaderData;
  const { owners } = loaderData;
  const deployment = useDeployment(
    server.qualifiedName,
    signedIn,
    signedIn && uses ? loaderData.deployment : undefined,
    undefined,
    owners.as,
  );
  const newKey = useNewKey(loaderData.newKey, server.qualifiedName);
  const visit = server.homepage ?? server.connections.find((c) => c.url.startsWith("http"))?.url ?? null;
  return (
    <ServerPageLayout
      name={server.displayName}
      badges={
        <span className="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs text-slate-600 dark:bg-slate-800 dark:text-slate-300">
          v{server.version}
        </span>
      }
      id={server.qualifiedName}
      repositoryUrl={server.repositoryUrl}
      actions={
        <>
          {isOwner && (
            <Link to={`/servers/server/${server.qualifiedName}/edit`} className={buttonClass("secondary")}>
              <Pencil className="h-4 w-4" aria-hidden /> Edit
            </Link>
          )}
          <VisitServerButton url={visit} />
        </>
      }
      aside={
        <>
          <section className={card} aria-labelledby="owner">
            <h2 id="owner" className="flex items-center gap-2 text-lg font-semibold">
              {server.owner.org ? (
                <Building2 className="h-5 w-5 text-indigo-500" aria-hidden />
              ) : (
                <User className="h-5 w-5 text-indigo-500" aria-hidden />
              )}{" "}
              Owner Information
            </h2>
            {server.owner.org ? (
              <p className="mt-3 text-sm" data-testid="owner-org">
                {ORG_TEXT.ownedBy(server.owner.org.name)}{" "}
                <span className="text-slate-600 dark:text-slate-400">({ORG_TEXT.anOrganisation})</span>
              </p>
            ) : (
              <p className="mt-3 text-sm">
                Registered by <span className="font-semibold">{server.owner.username}</span>
              </p>
            )}
          </section>

          <section className={card} aria-labelledby="stats">
            <h2 id="stats" className="flex items-center gap-2 text-lg font-semibold">
              <Activity className="h-5 w-5 text-indigo-500" aria-hidden /> Server Statistics
            </h2>
            <dl className="mt-3 space-y-2 text-sm">
              <div className="flex justify-between">
                <dt className="text-slate-600 dark:text-slate-400">Total Deployments</dt>
                <dd className="font-medium">{hosting.totalDeployments.toLocaleString("en-US")}</dd>
              </div>
              <div className="flex justify-between">
                <dt className="text-slate-600 dark:text-slate-400">Total Usage (requests)</dt>
                <dd className="font-medium">{server.useCount.toLocaleString("en-US")}</dd>
              </div>
              <div className="flex justify-between">
                <dt className="text-slate-600 dark:text-slate-400">Status</dt>
                <dd className="font-medium">{hosting.deployed ? "Deployed" : "Not Deployed"}</dd>
              </div>
            </dl>
          </section>

          <DeploymentCard requiredKeys={signedIn && uses ? null : server.required_keys}>
            {uses && !server.owner.org && <OwnerSwitch choice={owners} path={`/server/${server.qualifiedName}`} />}
            {signedIn || isOwner ? (
              <DeploymentPanel
                key={owners.as}
                owner={owners.orgs.find((o) => o.slug === owners.as) ?? null}
                planOutlook={loaderData.planOutlook}
                serverId={server.qualifiedName}
                requiredKeys={server.required_keys}
                signedIn={signedIn}
                hostingOpen={loaderData.hostingOpen}
                canDeploy={isOwner}
                commandEditable={isOwner}
                hasSource={Boolean(server.repositoryUrl)}
                state={deployment}
                editKeys={loaderData.editKeys}
                newKey={newKey}
              />
            ) : (
              <SignInLinks className="mt-3" after="to see more." />
            )}
          </DeploymentCard>
        </>
      }
    >
      <ServerInfoCard>
        <p className="mt-3 whitespace-pre-line">{server.description}</p>
        <ServerFacts first={["Version", server.version]} createdAt={server.createdAt} updatedAt={server.updatedAt} />
        {server.keywords.length > 0 && (
          <ul className="mt-4 flex flex-wrap gap-1.5" aria-label="Keywords">
            {server.keywords.map((k) => (
              <li key={k} className="rounded bg-indigo-50 px-2 py-0.5 text-xs text-indigo-700 dark:bg-indigo-950/60 dark:text-indigo-300">
                {k}
              </li>
            ))}
          </ul>
        )}
        {server.documentation && (
          <div className="mt-6 border-t border-slate-200 pt-6 dark:border-slate-800">
            <Markdown>{server.documentation}</Markdown>
          </div>
        )}
      </ServerInfoCard>

      <section className={card} aria-labelledby="connections">
        <h2 id="connections" className="text-lg font-semibold">
          Connections
        </h2>
        <DocsHint />
        <ul className="mt-3 space-y-3">
          {server.connections.map((c, i) => (
            <li key={i} className="rounded-lg border border-slate-200 p-3 dark:border-slate-700">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <span className="flex items-center gap-2">
                  <span className="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs uppercase dark:bg-slate-800">{c.type}</span>
                  <code className="break-all font-mono text-sm">{c.url}</code>
                </span>
                <CopyButton text={c.url} label="Copy URL" />
              </div>
            </li>
          ))}
        </ul>
      </section>

      <OwnerCards
        deployment={deployment}
        owner={signedIn && isOwner}
        tools={hosting.tools}
        gatewayTimeoutMs={loaderData.gatewayTimeoutMs}
        alerts={loaderData.alerts}
        domains={loaderData.domains}
        card={card}
      />
      <ToolsList tools={hosting.tools} listedAt={hosting.toolsListedAt} className={card} stats={loaderData.toolStats} />
    </ServerPageLayout>
  );
}
