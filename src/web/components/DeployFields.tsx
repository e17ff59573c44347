import { Loader2, Square } from "~/web/components/icons";
import { Link } from "react-router";
import { CONNECTION_TEXT } from "../../shared/connections";
import { DEPLOY_TEXT } from "../../shared/deployments";
import { TOOLSET_TEXT } from "../../shared/toolsets";
import { ConfirmButton } from "./ConfirmButton";
import { Alert, inputClass, linkClass } from "./ui";

// The Deployment panel's parts (DeploymentPanel.tsx): a key field, a refusal, the plan's word
// before a deploy, and Stop Server.

export type RequiredKey = { key: string; env_var: string; description: string };

/** A deploy's refusal; a plan's limit says where to stop a deployment or change the plan. */
export function DeployError({ error }: { error: string }) {
  return (
    <Alert kind="error">
      {error}
      {isPlanLimit(error) && (
        <span className="mt-1 block">
          <PlanLinks />
        </span>
      )}
    </Alert>
  );
}

/** A refusal of the plan's (a deploy, a restart, a wake): shown with where to make room or upgrade. */
export const isPlanLimit = (text: string) => /^(Your \w+ plan (allows|keeps) |This MCP server is asleep and cannot wake)/.test(text);

/** Where the owner makes room (My deployments) or upgrades (Subscription). */
export function PlanLinks() {
  return (
    <span data-testid="plan-limit-links">
      <Link to="/deployments" className={linkClass}>
        My deployments
      </Link>{" "}
      ·{" "}
      <Link to="/subscription" className={linkClass}>
        Subscription
      </Link>
    </span>
  );
}

/** One password field per required key (`env:<NAME>`), as Deploy and Edit keys post them. */
export function KeyFields({ keys, placeholder }: { keys: RequiredKey[]; placeholder?: string }) {
  return keys.map((k) => (
    <label key={k.env_var} className="block text-sm">
      <span className="font-medium">{k.key}</span>{" "}
      <code className="break-all font-mono text-xs text-slate-600 dark:text-slate-400">{k.env_var}</code>
      {k.description && <span className="block text-xs text-slate-600 dark:text-slate-400">{k.description}</span>}
      <input type="password" name={`env:${k.env_var}`} autoComplete="off" placeholder={placeholder} className={`${inputClass} mt-1`} />
    </label>
  ));
}

/** Stop Server (Remove for a connection or a toolset): it asks first, saying what stops working. */
export function StopButton({ source, name, busy }: { source: string; name: string; busy: string | null }) {
  const kind = source.startsWith("remote:") ? "connection" : source.startsWith("toolset:") ? "toolset" : "deployment";
  const icon = <Square className="h-4 w-4" aria-hidden />;
  const label = kind === "deployment" ? DEPLOY_TEXT.stop : CONNECTION_TEXT.disconnect;
  const ask =
    kind === "connection"
      ? { title: CONNECTION_TEXT.removeTitle(name), description: CONNECTION_TEXT.removeText }
      : kind === "toolset"
        ? { title: TOOLSET_TEXT.removeTitle(name), description: TOOLSET_TEXT.removeText }
        : { title: DEPLOY_TEXT.stopTitle(name), description: DEPLOY_TEXT.stopText };
  return (
    <ConfirmButton
      label={
        <>
          {icon} {label}
        </>
      }
      busy={busy === "stop"}
      busyLabel={
        <>
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> {DEPLOY_TEXT.stopping}
        </>
      }
      disabled={busy !== null}
      {...ask}
      confirmLabel={label}
      cancelLabel={DEPLOY_TEXT.cancel}
    />
  );
}

/** The plan's word before a deploy or a wake: which deployment it puts to sleep, or why it would be refused (with where to go). */
export function PlanOutlook({ text }: { text: string }) {
  return (
    <div
      data-testid="plan-outlook"
      role="note"
      className="rounded-md border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
    >
      {text} <PlanLinks />
    </div>
  );
}
