import { Loader2 } from "~/web/components/icons";
import { ORG_TEXT } from "../../../shared/orgs";
import { Enhanced, useActionForm } from "../../lib/forms";
import { Alert, Button } from "../ui";

// An organisation's setting (its admins'): whether its members deploy for it and change its
// deployments, or only use them. A checkbox posted to the page's action (unticked posts nothing:
// off), with and without scripts.

export function OrgMembersDeploy({ on }: { on: boolean }) {
  const { fetcher, answer, busy } = useActionForm<{ form: string; error?: string; message?: string }>("settings");
  const mine = answer?.form === "settings" ? answer : undefined;
  return (
    <fetcher.Form method="post" className="space-y-2" data-testid="org-members-deploy">
      <Enhanced />
      <input type="hidden" name="intent" value="settings" />
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          name="members_deploy"
          defaultChecked={on}
          className="mt-0.5 h-4 w-4"
          aria-describedby="org-members-deploy-hint"
        />
        <span>
          <span className="font-medium">{ORG_TEXT.membersDeployLabel}</span>
          <span id="org-members-deploy-hint" className="block text-xs text-slate-600 dark:text-slate-400">
            {ORG_TEXT.membersDeployHint}
          </span>
        </span>
      </label>
      {mine?.error && <Alert kind="error">{mine.error}</Alert>}
      {mine?.message && !mine.error && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {mine.message}
        </p>
      )}
      <Button type="submit" variant="secondary" size="sm" disabled={busy}>
        {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {ORG_TEXT.saveSettings}
      </Button>
    </fetcher.Form>
  );
}
