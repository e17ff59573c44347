import type { AlertsPage } from "../../shared/alerts";
import type { DeploymentView } from "../../shared/deployments";

/** What the Deployment panel's forms (deploy, stop, tool selection, alerts) answer (lib/deploy.server.ts). */
export type DeployAnswer = {
  form: "deploy" | "tools" | "alerts" | "alert-test";
  intent: string;
  error?: string;
  deployment?: DeploymentView | null;
  message?: string;
  /** the deployment's alerts as they are now (the alert forms) */
  alerts?: AlertsPage;
};
