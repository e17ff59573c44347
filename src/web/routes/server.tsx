import { data, Link } from "react-router";
import { AppError } from "../../server/errors";
import { getServer, getServerWithRelated, toCatalogServer } from "../../server/features/catalog/service";
import { deployabilityOf } from "../../server/features/deployments/deployability";
import { trustedSeed } from "../../server/features/deployments/definitions/listings";
import { myDeploymentTools } from "../../server/features/deployments/service";
import { WORKS_TEXT } from "../../shared/catalog";
import { SYNC_TEXT } from "../../shared/catalog-sync";
import { connectConfigs, remoteConfigs } from "../../shared/connect";
import { DeploymentPanel } from "../components/DeploymentPanel";
import { OwnerSwitch } from "../components/OwnerSwitch";
import { Alert } from "../components/ui";
import { ToolsList } from "../components/ToolsList";
import { Markdown } from "../components/Markdown";
import { ServerFacts, ServerNotFound, serverCard, serverMeta, VisitServerButton } from "../components/ServerParts";
import { DeploymentCard, ServerInfoCard, ServerPageLayout } from "../components/server/ServerPageLayout";
import { TypeBadge } from "../components/ServerCard";
import { ConnectSection } from "../components/server/ConnectSection";
import { OwnerCards } from "../components/server/OwnerCards";
import { RelatedServers } from "../components/server/RelatedServers";
import { WorksHere } from "../components/server/WorksHere";
import { deploymentAction } from "../lib/deploy.server";
import { serverPageHeaders, takeNewKey } from "../lib/new-key-flash.server";
import { useNewKey } from "../lib/use-new-key";
import { useDeployment } from "../lib/use-deployment";
import type { Route } from "./+types/server";
import { serverPageData } from "./server-page.server";

export async function loader({ params, context, url, request }: Route.LoaderArgs) {
  try {
    const { row, related } = await getServerWithRelated(context.db, params.id, context.viewer);
    const page = await serverPageData(context, url, { kind: "catalog", ref: row.id }, true);
    // Its public listing is the approved one; a viewer with a deployment sees what theirs listed.
    const ownTools = page.deployment && context.viewer ? await myDeploymentTools(context.db, context.viewer, page.deployment.id) : null;
    // A key just made from this page for it: filled into its snippets this once.
    const flash = await takeNewKey(context, request, row.id);
    return data(
      {
        newKey: flash.newKey,
        ...page,
        server: toCatalogServer(row),
        url: row.url,
        deployability: deployabilityOf(row, { allowFileGit: context.config.GIT_ALLOW_FILE === "on" }),
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        approved: row.isApproved,
        related,
        ownTools,
        // The platform's own demo entry, checked by the platform itself before long (deployments/checks/seed-checks.ts).
        seedPending:
          context.config.SEED_CHECKS === "on" &&
          !page.hosting.check &&
          page.hosting.tools.length === 0 &&
          trustedSeed(row) &&
          deployabilityOf(row, { allowFileGit: context.config.GIT_ALLOW_FILE === "on" }).kind === "deployable",
      },
      { headers: flash.headers },
    );
  } catch (e) {
    if (e instanceof AppError && e.code === "not_found") throw data({ id: params.id }, { status: 404 });
    throw e;
  }
}

// Deploy, Stop Server and the exposed tools post here (they work without JavaScript).
export async function action({ params, context, request, url }: Route.ActionArgs) {
  const row = await getServer(context.db, params.id, context.viewer).catch((e: unknown) => {
    if (e instanceof AppError && e.code === "not_found") throw data({ id: params.id }, { status: 404 });
    throw e;
  });
  return deploymentAction(context, request, url, {
    id: row.id,
    requiredKeys: row.requiredKeys ?? [],
    repositoryUrl: row.repositoryUrl,
    npxCommand: row.npxCommand,
  });
}

// Kept out of caches when it shows a new key.
export const headers = serverPageHeaders;

export function meta({ data: d }: Route.MetaArgs) {
  return serverMeta(d && { name: d.server.name, description: d.server.description, site: d.site });
}

const card = serverCard;

export function ErrorBoundary() {
  return <ServerNotFound />;
}

export default function ServerPage({ loaderData }: Route.ComponentProps) {
  const { server, url, related, signedIn, hosting } = loaderData;
  const { deployability } = loaderData;
  const remote = deployability.kind === "remote" ? deployability : null;
  const configs =
    connectConfigs(server.id, server.npx_command, server.required_keys) ??
    (remote && remoteConfigs(server.id, remote.url, remote.transport));
  const unavailable = deployability.kind === "unsupported" ? deployability.reason : undefined;
  const { owners } = loaderData;
  const deployment = useDeployment(server.id, signedIn, signedIn ? loaderData.deployment : undefined, undefined, owners.as);
  // A connection (a remote server) is the viewer's own; an organisation deploys what runs here.
  const switchable = remote === null && unavailable === undefined;
  const newKey = useNewKey(loaderData.newKey, server.id);
  return (
    <ServerPageLayout
      name={server.name}
      badges={
        <>
          <TypeBadge type={server.type} />
          {!loaderData.approved && !server.withdrawn && (
            <span className="rounded bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 dark:bg-amber-900/40 dark:text-amber-300">
              Pending Approval
            </span>
          )}
        </>
      }
      id={server.id}
      repositoryUrl={server.repository_url}
      links={
        <div className="mt-1 flex flex-wrap gap-4 text-sm">
          {server.homepage && (
            <a
              href={server.homepage}
              target="_blank"
              rel="noopener nofollow ugc"
              className="text-indigo-600 hover:underline dark:text-indigo-400"
            >
              Homepage
            </a>
          )}
          {server.documentation && (
            <a
              href={server.documentation}
              target="_blank"
              rel="noopener nofollow ugc"
              className="text-indigo-600 hover:underline dark:text-indigo-400"
            >
              Documentation
            </a>
          )}
        </div>
      }
      actions={<VisitServerButton url={url} />}
      notice={
        (server.withdrawn || server.deprecated) && (
          <Alert kind="warning">{server.withdrawn ? SYNC_TEXT.withdrawn : SYNC_TEXT.deprecated}</Alert>
        )
      }
      aside={
        <>
          {hosting.check && <WorksHere check={hosting.check} remote={Boolean(remote)} />}
          <DeploymentCard requiredKeys={signedIn ? null : (server.required_keys ?? [])}>
            {switchable && <OwnerSwitch choice={owners} path={`/server/${server.id}`} />}
            <DeploymentPanel
              key={owners.as}
              owner={owners.orgs.find((o) => o.slug === owners.as) ?? null}
              planOutlook={loaderData.planOutlook}
              serverId={server.id}
              requiredKeys={server.required_keys ?? []}
              signedIn={signedIn}
              hostingOpen={loaderData.hostingOpen}
              canDeploy
              hasSource={Boolean(server.npx_command || server.repository_url)}
              unavailable={unavailable}
              connect={remote !== null}
              state={deployment}
              editKeys={loaderData.editKeys}
              newKey={newKey}
            />
          </DeploymentCard>
        </>
      }
      after={<RelatedServers related={related} />}
    >
      <ServerInfoCard>
        <div className="mt-3">
          <Markdown>{server.description}</Markdown>
        </div>
        <ServerFacts first={["Category", server.category]} createdAt={loaderData.createdAt} updatedAt={loaderData.updatedAt} />
        {server.tags.length > 0 && (
          <ul className="mt-4 flex flex-wrap gap-1.5" aria-label="Tags">
            {server.tags.map((t) => (
              <li key={t}>
                <Link
                  to={`/?q=${encodeURIComponent(t)}`}
                  className="rounded bg-indigo-50 px-2 py-0.5 text-xs text-indigo-700 hover:underline dark:bg-indigo-950/60 dark:text-indigo-300"
                >
                  {t}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </ServerInfoCard>

      <ConnectSection configs={configs} remote={remote} npxCommand={server.npx_command} className={card} signedIn={signedIn} />
      <OwnerCards
        deployment={deployment}
        owner={signedIn}
        tools={loaderData.ownTools?.tools ?? hosting.tools}
        gatewayTimeoutMs={loaderData.gatewayTimeoutMs}
        alerts={loaderData.alerts}
        domains={loaderData.domains}
        card={card}
      />
      {loaderData.ownTools && deployment.deployment ? (
        <ToolsList
          tools={loaderData.ownTools.tools}
          listedAt={loaderData.ownTools.listedAt}
          className={card}
          stats={loaderData.toolStats}
          own
        />
      ) : (
        <ToolsList
          tools={hosting.tools}
          listedAt={hosting.toolsListedAt}
          className={card}
          stats={loaderData.toolStats}
          empty={
            hosting.check?.outcome === "works"
              ? WORKS_TEXT.toolsPending
              : loaderData.seedPending
                ? WORKS_TEXT.seedPending
                : WORKS_TEXT.toolsUnchecked
          }
        />
      )}
    </ServerPageLayout>
  );
}
