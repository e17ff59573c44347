import { Link } from "react-router";
import { Alert, inputClass, linkClass } from "./ui";

// The Deployment panel's parts that show a key field or a refusal (DeploymentPanel.tsx).

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
