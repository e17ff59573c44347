import type { AppLoadContext } from "react-router";
import { serverHosting } from "../../server/features/deployments/service";
import { planOutlook } from "../../server/features/deployments/sleep/plan-outlook";
import { toolStats } from "../../server/features/request-log/service";
import { hostingOpen } from "../../shared/deployments";
import { viewerAlerts, viewerDeployment, viewerDomains } from "../lib/deploy.server";
import { orgsReached } from "../../server/features/orgs/accounts";
import type { OwnerChoice } from "../components/OwnerSwitch";

// What a server's page loads whichever kind it is (server.tsx, a catalogue entry; owned-server.tsx,
// a registered server): its hosting figures, tool figures, the viewer's deployment and the page's
// settings. Server only; it lives among the route modules because it calls features' services.

/** Which server: a catalogue entry by id, a registered server by qualified name. */
type ServerRef = Parameters<typeof serverHosting>[1];

/**
 * `usage` says whether the viewer may see the server's tool figures and have a deployment of it
 * (anyone for a catalogue entry; only its owner for a registered server). `ownId`: the viewer's
 * deployment the page is about when it is not a server's (a connection's or a toolset's page),
 * whose alerts and domains the page shows.
 */
export async function serverPageData(context: AppLoadContext, url: URL, server: ServerRef, usage: boolean, ownId?: string) {
  const owners = await ownerChoice(context, url);
  const [hosting, deployment] = await Promise.all([
    serverHosting(context.db, server),
    usage ? viewerDeployment(context, server.ref, owners.as) : null,
  ]);
  // Tool figures are kept only for the tools of its public listing: without one (most entries)
  // there are none to read, and the page saves a query.
  const stats = usage && hosting.tools.length > 0 ? await toolStats(context.db, server) : [];
  // The owner's Monitoring & alerts and Custom domains cards, for the first paint (and the page without JavaScript).
  const [alerts, domains, outlook] = await Promise.all([
    viewerAlerts(context, ownId ?? deployment?.id),
    viewerDomains(context, ownId ?? deployment?.id),
    // The viewer's plan speaks for their own deployments; an organisation's plan is its own.
    ownId || owners.as ? null : outlookFor(context, usage, deployment),
  ]);
  return {
    alerts,
    domains,
    editKeys: url.searchParams.get("edit") === "keys",
    hosting,
    owners,
    toolStats: stats,
    deployment,
    planOutlook: outlook,
    signedIn: Boolean(context.viewer),
    gatewayTimeoutMs: context.config.GATEWAY_REQUEST_TIMEOUT_MS,
    hostingOpen: hostingOpen(context.sandbox.complete, context.config.SANDBOX_INCOMPLETE, context.viewer?.isAdmin ?? false),
    site: context.config.SITE_NAME,
  };
}

/**
 * The owner switch's choice (`?as=slug`): the viewer's organisations, and which one the page is
 * about ("" for their own). `making`: only those the viewer may make things for.
 */
export async function ownerChoice(context: AppLoadContext, url: URL, making = false): Promise<OwnerChoice> {
  if (!context.viewer) return { as: "", orgs: [] };
  const orgs = [...(await orgsReached(context.db, context.viewer.id)).values()].filter((o) => !making || o.manage);
  const wanted = (url.searchParams.get("as") ?? "").toLowerCase();
  return { as: orgs.some((o) => o.slug === wanted) ? wanted : "", orgs };
}

/** What the viewer's plan says before a deploy of this server, or before waking their sleeping deployment of it (null: nothing to say). */
async function outlookFor(context: AppLoadContext, usage: boolean, deployment: { id: string; status: string } | null) {
  if (!context.viewer || !usage) return null;
  if (deployment && deployment.status !== "sleeping") return null;
  return planOutlook(context, context.viewer, deployment?.id);
}
