import { Loader2, Moon } from "~/web/components/icons";
import type { FetcherWithComponents } from "react-router";
import { SLEEP_TEXT, type DeploymentView } from "../../shared/deployments";
import { dateTime } from "../lib/dates";
import { Enhanced } from "../lib/forms";
import { Button } from "./ui";

// A hosted deployment's sleep, in the Deployment panel (docs/product.md#sleeping).

/** Whether it sleeps now (and wakes on the next request), and when it was last used. */
export function SleepLine({ deployment }: { deployment: DeploymentView }) {
  const last = deployment.last_active_at;
  return (
    <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="deployment-sleep">
      {deployment.status === "sleeping" && <span className="font-medium text-sky-800 dark:text-sky-300">{SLEEP_TEXT.sleeping}. </span>}
      {last ? <time dateTime={last}>{SLEEP_TEXT.lastActive(dateTime(last))}</time> : SLEEP_TEXT.neverActive}
      {deployment.keep_awake && ` · ${SLEEP_TEXT.keptAwake}`}
    </p>
  );
}

/** "Keep awake" / "Allow sleeping": Pro keeps a deployment running while idle; the API answers anyone else why not. */
export function KeepAwakeForm({
  Form,
  deployment,
  busy,
}: {
  Form: FetcherWithComponents<unknown>["Form"];
  deployment: DeploymentView;
  /** the panel's form being posted, if any */
  busy: string | null;
}) {
  return (
    <Form method="post">
      <Enhanced />
      <input type="hidden" name="intent" value="keep-awake" />
      <input type="hidden" name="deployment" value={deployment.id} />
      <input type="hidden" name="keep" value={deployment.keep_awake ? "0" : "1"} />
      <Button type="submit" variant="secondary" size="sm" disabled={busy !== null} title={SLEEP_TEXT.keepAwakeHint}>
        {busy === "keep-awake" ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Moon className="h-4 w-4" aria-hidden />}
        {deployment.keep_awake ? SLEEP_TEXT.allowSleep : SLEEP_TEXT.keepAwake}
      </Button>
    </Form>
  );
}
