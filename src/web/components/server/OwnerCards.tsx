import type { AlertsPage } from "../../../shared/alerts";
import type { DomainsPage } from "../../../shared/domains";
import type { DeploymentState } from "../../lib/use-deployment";
import { DefinitionReview } from "../DefinitionReview";
import { Playground } from "../playground/Playground";
import { RequestLog } from "../RequestLog";
import { ToolSelection } from "../ToolSelection";
import type { ToolInfo } from "../ToolsList";
import { AlertsCard } from "./AlertsCard";
import { DomainsCard } from "./DomainsCard";

// What a server page shows its deployment's owner, on a catalogue entry's page and on an owned
// server's: the definition changes to review, the playground, the request log and the tool
// selection, its monitoring and alerts, and its custom domains. Anyone else sees none of them.

interface Props {
  deployment: DeploymentState;
  /** the viewer is signed in and the deployment shown is theirs */
  owner: boolean;
  /** the tools the tool selection offers */
  tools: ToolInfo[];
  gatewayTimeoutMs: number;
  /** the deployment's alerts as the page loaded them (the owner's) */
  alerts: AlertsPage | null;
  /** the deployment's custom domains as the page loaded them (the owner's) */
  domains: DomainsPage | null;
  card: string;
}

export function OwnerCards({ deployment, owner, tools, gatewayTimeoutMs, alerts, domains, card }: Props) {
  // An organisation's member uses its deployment (the playground) but, unless it lets members,
  // does not manage it: the review, log, alerts, domains and tool selection are its owners' and admins'.
  const own = owner && (deployment.deployment?.org?.manage ?? true) ? deployment.deployment : undefined;
  return (
    <>
      {own && <DefinitionReview key={`review-${own.id}`} deployment={own} onStopping={deployment.onStopping} className={card} />}
      <Playground state={deployment} signedIn={owner} gatewayTimeoutMs={gatewayTimeoutMs} className={card} />
      {own && <RequestLog key={`log-${own.id}`} deploymentId={own.id} onStopping={deployment.onStopping} className={card} />}
      {own && <AlertsCard key={`alerts-${own.id}`} deploymentId={own.id} initial={alerts} className={card} />}
      {own && domains && <DomainsCard key={`domains-${own.id}`} deploymentId={own.id} initial={domains} className={card} />}
      {own && <ToolSelection key={`tools-${own.id}`} deployment={own} tools={tools} onSaved={deployment.refresh} className={card} />}
    </>
  );
}
