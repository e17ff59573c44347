import type { AlertsPage } from "../../shared/alerts";
import type { DomainsPage } from "../../shared/domains";
import type { DeploymentView } from "../../shared/deployments";

/** What the Deployment panel's forms (deploy, stop, tool selection, alerts) answer (lib/deploy.server.ts). */
export type DeployAnswer = {
  form: "deploy" | "tools" | "alerts" | "alert-test" | "domains";
  intent: string;
  error?: string;
  deployment?: DeploymentView | null;
  message?: string;
  /** the deployment's alerts as they are now (the alert forms) */
  alerts?: AlertsPage;
  /** the deployment's custom domains as they are now (the domain forms) */
  domains?: DomainsPage;
};
