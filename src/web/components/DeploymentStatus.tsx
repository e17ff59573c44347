import { MACHINE_TEXT, statusLabel, type DeploymentView } from "../../shared/deployments";
import { ORG_TEXT } from "../../shared/orgs";
import { CopyButton } from "./CopyButton";

// The Deployment panel's first lines about a deployment (DeploymentPanel.tsx): its status (whose
// it is, its restarts, the machine that holds it) and its URL to copy.

/** The status, said to screen readers as it changes. */
export function StatusLine({ deployment }: { deployment: DeploymentView }) {
  const running = deployment.status === "running";
  const sleeping = deployment.status === "sleeping";
  return (
    <p className="flex items-center gap-2 text-sm font-medium" aria-live="polite">
      <span
        className={`inline-block h-2.5 w-2.5 rounded-full ${running ? "bg-green-500" : sleeping ? "bg-sky-400" : "bg-yellow-400"}`}
        aria-hidden
      />
      <span data-testid="deployment-status">{statusLabel(deployment.status)}</span>
      {deployment.org && (
        <span className="text-xs font-normal text-slate-600 dark:text-slate-400" data-testid="deployment-org">
          · {ORG_TEXT.ownedBy(deployment.org.name)}
        </span>
      )}
      {deployment.restarts > 0 && (
        <span className="text-xs font-normal text-slate-600 dark:text-slate-400">· restarted {deployment.restarts}×</span>
      )}
      {deployment.runner !== undefined && (
        <span data-testid="deployment-runner" className="text-xs font-normal text-slate-600 dark:text-slate-400" title={MACHINE_TEXT.hint}>
          {deployment.runner ? MACHINE_TEXT.on(deployment.runner) : MACHINE_TEXT.waiting}
        </span>
      )}
    </p>
  );
}

export function UrlLine({ url }: { url: string }) {
  return (
    <div>
      <p className="text-xs text-slate-600 dark:text-slate-400">Server URL</p>
      <div className="mt-1 flex items-center gap-2">
        <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-950" title={url}>
          {url}
        </code>
        <CopyButton text={url} />
      </div>
    </div>
  );
}
