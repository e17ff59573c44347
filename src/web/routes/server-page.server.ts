import type { AppLoadContext } from "react-router";
import { serverHosting } from "../../server/features/deployments/service";
import { toolStats } from "../../server/features/request-log/service";
import { hostingOpen } from "../../shared/deployments";
import { viewerAlerts, viewerDeployment, viewerDomains } from "../lib/deploy.server";

// What a server's page loads whichever kind it is (server.tsx, a catalogue entry; owned-server.tsx,
// a registered server): its hosting figures, tool figures, the viewer's deployment and the page's
// settings. Server only; it lives among the route modules because it calls features' services.

/** Which server: a catalogue entry by id, a registered server by qualified name. */
type ServerRef = Parameters<typeof serverHosting>[1];

/**
 * `usage` says whether the viewer may see the server's tool figures and have a deployment of it
 * (anyone for a catalogue entry; only its owner for a registered server).
 */
export async function serverPageData(context: AppLoadContext, url: URL, server: ServerRef, usage: boolean) {
  const [hosting, deployment] = await Promise.all([
    serverHosting(context.db, server),
    usage ? viewerDeployment(context, server.ref) : null,
  ]);
  // Tool figures are kept only for the tools of its public listing: without one (most entries)
  // there are none to read, and the page saves a query.
  const stats = usage && hosting.tools.length > 0 ? await toolStats(context.db, server) : [];
  // The owner's Monitoring & alerts and Custom domains cards, for the first paint (and the page without JavaScript).
  const [alerts, domains] = await Promise.all([viewerAlerts(context, deployment?.id), viewerDomains(context, deployment?.id)]);
  return {
    alerts,
    domains,
    editKeys: url.searchParams.get("edit") === "keys",
    hosting,
    toolStats: stats,
    deployment,
    signedIn: Boolean(context.viewer),
    gatewayTimeoutMs: context.config.GATEWAY_REQUEST_TIMEOUT_MS,
    hostingOpen: hostingOpen(context.sandbox.complete, context.config.SANDBOX_INCOMPLETE, context.viewer?.isAdmin ?? false),
    site: context.config.SITE_NAME,
  };
}
