import type { DeploymentView } from "../../shared/deployments";

/** What the Deployment panel's forms (deploy, stop, tool selection) answer (lib/deploy.server.ts). */
export type DeployAnswer = {
  form: "deploy" | "tools";
  intent: string;
  error?: string;
  deployment?: DeploymentView | null;
  message?: string;
};
