import { KeyRound, Loader2, RotateCw, ScrollText } from "~/web/components/icons";
import { useEffect, useRef, useState } from "react";
import { CONNECTION_TEXT } from "../../shared/connections";
import { DEPLOY_TEXT } from "../../shared/deployments";
import { ORG_TEXT } from "../../shared/orgs";
import { api } from "../lib/api";
import type { DeployAnswer } from "../lib/deploy-types";
import { Enhanced, useActionForm, useHydrated } from "../lib/forms";
import type { DeploymentState } from "../lib/use-deployment";
import { KeepAwakeForm, SleepLine } from "./SleepLine";
import { WAY_IN_TEXT } from "../../shared/way-in";
import { HostedConnect, type NewKey } from "./HostedConnect";
import { SignInLinks } from "./SignInLinks";
import { OAuthChoice, SignInAgainButton } from "./ConnectionForms";
import { DeployError, KeyFields, PlanOutlook, StopButton } from "./DeployFields";
import { StatusLine, UrlLine } from "./DeploymentStatus";
import { Button, inputClass } from "./ui";

// The Deployment panel (docs/product.md#hosting): deploy with your own keys, watch the status
// (polled every 5 s by useDeployment, which the page owns), copy the URL, stop, see why it failed
// and its last output lines. Deploy and Stop post to the page's action (lib/deploy.server.ts), so
// they work without JavaScript too.

interface Props {
  /** catalogue id or owned qualified name */
  serverId: string;
  requiredKeys: { key: string; env_var: string; description: string }[];
  signedIn: boolean;
  /** false for another user's owned server */
  canDeploy: boolean;
  /** a repository URL or npx command exists */
  hasSource: boolean;
  /** why this server cannot be deployed here (a container image, a publisher-hosted server, a command that cannot run) */
  unavailable?: string;
  /** the owner may name a command (npx, uvx, docker run, python -m) instead of building the repository */
  commandEditable?: boolean;
  /** this instance lets the viewer run hosted code (its sandbox is complete, or the viewer is an admin) */
  hostingOpen: boolean;
  /** the page's one poll of the viewer's deployment (useDeployment) */
  state: DeploymentState;
  /** open 'Edit keys' at once (My deployments links here with ?edit=keys) */
  editKeys?: boolean;
  /** its publisher hosts it: 'Connect' (a connection with the viewer's keys) instead of 'Deploy' */
  connect?: boolean;
  /** a key just made from this page for this server (shown this once: lib/new-key-flash.server.ts) */
  newKey?: NewKey | null;
  /** what the viewer's plan says before a deploy, or before waking their sleeping deployment (which one it puts to sleep, or why it would be refused) */
  planOutlook?: string | null;
  /** the organisation the panel is about (the page's owner switch) and the viewer's role in it; absent: the viewer's own */
  owner?: { slug: string; name: string; role: string; manage: boolean } | null;
}

/** The panel's forms that act on a deployment and answer with its new state. */
const ACTS = ["deploy", "connect", "stop", "restart", "keys", "sign-in", "keep-awake"];

export function DeploymentPanel(p: Props) {
  const hydrated = useHydrated();
  const { deployment, loaded, setDeployment } = p.state;
  const { fetcher, answer } = useActionForm<DeployAnswer>("deploy");
  const pendingIntent = fetcher.state === "submitting" ? String(fetcher.formData?.get("intent") ?? "") : null;
  // Which of Stop, Restart or Edit keys is saying goodbye to the page's sessions before it posts.
  const [endingFor, setEndingFor] = useState<string | null>(null);
  const busy = (pendingIntent && ACTS.includes(pendingIntent) ? pendingIntent : endingFor) || null;
  const [command, setCommand] = useState("");
  const [logs, setLogs] = useState<string[] | null>(null);
  const error = answer && ACTS.includes(answer.intent) ? (answer.error ?? null) : null;
  const notice =
    answer && (answer.intent === "restart" || answer.intent === "keys" || answer.intent === "keep-awake") && !answer.error
      ? (answer.message ?? null)
      : null;

  // What Deploy or Stop answered shows at once, without waiting for the next poll.
  const seen = useRef<DeployAnswer | undefined>(undefined);
  useEffect(() => {
    if (!fetcher.data || seen.current === fetcher.data) return;
    seen.current = fetcher.data;
    if (fetcher.data.deployment !== undefined && ACTS.includes(fetcher.data.intent)) setDeployment(fetcher.data.deployment);
  }, [fetcher.data, setDeployment]);
  // A stopped deployment's output goes with it.
  if (!deployment && logs) setLogs(null);

  // Stop, Restart and Edit keys end the running process: sessions this page holds (the
  // playground) end first, while the deployment still answers.
  const onStop = async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setEndingFor(String(form.get("intent")));
    await p.state.beforeStop();
    setEndingFor(null);
    await fetcher.submit(form, { method: "post" });
  };

  const showLogs = async () => {
    if (!deployment) return;
    if (logs) return setLogs(null);
    const r = await api<{ lines: string[] }>(`/api/deployments/${deployment.id}/logs`);
    setLogs(r.ok ? r.data.lines : [r.error ?? "Could not load the output."]);
  };

  const closed = !p.hostingOpen && (
    <p className="text-sm text-amber-800 dark:text-amber-300" data-testid="hosting-closed">
      {DEPLOY_TEXT.hostingClosed}
    </p>
  );
  if (p.signedIn && !p.canDeploy)
    return <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">Only the owner can deploy this server.</p>;
  if (!loaded)
    return (
      <div className="mt-3 space-y-3">
        {closed}
        <p className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Loading deployment…
        </p>
      </div>
    );

  // An organisation's members use its deployments; its owners and admins (and members, where it lets them) deploy and change them.
  const manages = deployment?.org ? deployment.org.manage : (p.owner?.manage ?? true);
  if (deployment) {
    const running = deployment.status === "running";
    const sleeping = deployment.status === "sleeping";
    const hosted = !deployment.source.startsWith("remote:") && !deployment.source.startsWith("toolset:");
    return (
      <div className="mt-3 space-y-3" data-testid="deployment">
        <StatusLine deployment={deployment} />
        {hosted && (sleeping || running) && <SleepLine deployment={deployment} />}
        {sleeping && p.planOutlook && <PlanOutlook text={p.planOutlook} />}
        {deployment.status_detail && deployment.status !== "running" && (
          <pre
            tabIndex={0}
            className="max-h-48 overflow-auto whitespace-pre-wrap rounded-md bg-amber-50 p-2 text-xs text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
          >
            {deployment.status_detail}
          </pre>
        )}
        <UrlLine url={deployment.url} />
        {(running || sleeping) && <HostedConnect serverId={p.serverId} url={deployment.url} newKey={p.newKey} />}
        {error && <DeployError error={error} />}
        {deployment.status_detail?.startsWith(CONNECTION_TEXT.signInAgain) && (
          // A connection whose OAuth sign-in the server no longer takes: only signing in again mends it.
          <fetcher.Form method="post">
            <Enhanced />
            <input type="hidden" name="intent" value="sign-in" />
            <input type="hidden" name="connection" value={deployment.id} />
            <SignInAgainButton busy={busy === "sign-in"} disabled={busy !== null} />
          </fetcher.Form>
        )}
        {!manages && <p className="text-sm text-slate-600 dark:text-slate-400">{ORG_TEXT.notAllowedDeploy}.</p>}
        <div className={manages ? "flex flex-wrap gap-2" : "hidden"}>
          <fetcher.Form method="post" onSubmit={(e) => void onStop(e)}>
            <Enhanced />
            <input type="hidden" name="intent" value="stop" />
            <input type="hidden" name="deployment" value={deployment.id} />
            <StopButton source={deployment.source} name={p.serverId} busy={busy} />
          </fetcher.Form>
          <fetcher.Form method="post" onSubmit={(e) => void onStop(e)}>
            <Enhanced />
            <input type="hidden" name="intent" value="restart" />
            <input type="hidden" name="deployment" value={deployment.id} />
            <Button type="submit" variant="secondary" size="sm" disabled={busy !== null}>
              <RotateCw className={`h-4 w-4 ${busy === "restart" ? "animate-spin" : ""}`} aria-hidden />
              {busy === "restart" ? DEPLOY_TEXT.restarting : DEPLOY_TEXT.restart}
            </Button>
          </fetcher.Form>
          {hosted && <KeepAwakeForm Form={fetcher.Form} deployment={deployment} busy={busy} />}
          {hydrated && (
            <Button variant="secondary" size="sm" onClick={showLogs} aria-expanded={logs !== null}>
              <ScrollText className="h-4 w-4" aria-hidden /> {logs ? "Hide output" : "Show output"}
            </Button>
          )}
        </div>
        {manages && p.requiredKeys.length > 0 && (
          <details id="edit-keys" open={p.editKeys} className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
            <summary className="flex cursor-pointer items-center gap-2 text-sm font-medium">
              <KeyRound className="h-4 w-4" aria-hidden /> {DEPLOY_TEXT.editKeys}
            </summary>
            {/* A new form per answer: typed keys are cleared once saved. */}
            <fetcher.Form method="post" className="mt-2 space-y-3" onSubmit={(e) => void onStop(e)} key={notice ?? "keys"}>
              <Enhanced />
              <input type="hidden" name="intent" value="keys" />
              <input type="hidden" name="deployment" value={deployment.id} />
              <p className="text-xs text-slate-600 dark:text-slate-400">{DEPLOY_TEXT.editKeysHint}</p>
              <KeyFields keys={p.requiredKeys} placeholder="Unchanged" />
              <Button type="submit" size="sm" disabled={busy !== null}>
                {busy === "keys" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                {busy === "keys" ? DEPLOY_TEXT.restarting : DEPLOY_TEXT.saveKeys}
              </Button>
            </fetcher.Form>
          </details>
        )}
        {notice && (
          <p role="status" className="text-sm text-green-700 dark:text-green-400" data-testid="deployment-notice">
            {notice}
          </p>
        )}
        {logs && (
          <pre
            data-testid="deployment-logs"
            tabIndex={0}
            className="max-h-64 overflow-auto rounded-md bg-slate-950 p-2 text-xs text-slate-100"
          >
            {logs.length ? logs.join("\n") : "No output yet."}
          </pre>
        )}
      </div>
    );
  }

  const hasSource = p.hasSource || command.trim() !== "";

  if (p.connect) {
    // A connection runs none of the viewer's code: the sandbox's state does not hold it back.
    return (
      <fetcher.Form method="post" className="mt-3 space-y-3" key={answer?.deployment?.id ?? "new"}>
        <Enhanced />
        <p className="text-sm text-slate-600 dark:text-slate-400">{CONNECTION_TEXT.connectHint}</p>
        {p.signedIn && <KeyFields keys={p.requiredKeys} />}
        {p.signedIn && <OAuthChoice id="connect-oauth" />}
        {error && <DeployError error={error} />}
        <input type="hidden" name="intent" value="connect" />
        <Button type="submit" block disabled={busy !== null}>
          {busy === "connect" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy === "connect" ? CONNECTION_TEXT.connecting : CONNECTION_TEXT.connect}
        </Button>
        {!p.signedIn && (
          <>
            <p className="text-xs text-slate-600 dark:text-slate-400">
              You will be asked to log in first; your keys stay encrypted and are only sent to this server.
            </p>
            <SignInLinks after={WAY_IN_TEXT.deployInvite} />
          </>
        )}
      </fetcher.Form>
    );
  }

  if (p.unavailable) {
    return (
      <>
        <p
          data-testid="not-deployable"
          className="mt-3 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-700 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-300"
        >
          {p.unavailable}
        </p>
        {!p.signedIn && <SignInLinks className="mt-3" />}
      </>
    );
  }

  if (!manages) return <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{ORG_TEXT.notAllowedDeploy}.</p>;

  // Keys are cleared once deployed: the form is made anew for each deployment.
  return (
    <fetcher.Form method="post" className="mt-3 space-y-3" key={answer?.deployment?.id ?? "new"}>
      <Enhanced />
      {p.signedIn && <KeyFields keys={p.requiredKeys} />}
      {p.signedIn && p.commandEditable && (
        <label className="block text-sm">
          <span className="font-medium">{DEPLOY_TEXT.commandLabel}</span>
          <span id="deploy-command-hint" className="block text-xs text-slate-600 dark:text-slate-400">
            {DEPLOY_TEXT.commandHint}
          </span>
          <input
            type="text"
            name="command"
            spellCheck={false}
            autoComplete="off"
            aria-describedby="deploy-command-hint"
            maxLength={500}
            placeholder="uvx mcp-server-time"
            className={`${inputClass} mt-1 font-mono`}
            value={command}
            onChange={(e) => setCommand(e.target.value)}
          />
        </label>
      )}
      {!hasSource && <p className="text-sm text-slate-600 dark:text-slate-400">{DEPLOY_TEXT.needsSource}</p>}
      {closed}
      {p.planOutlook && !error && <PlanOutlook text={p.planOutlook} />}
      {error && <DeployError error={error} />}
      {/* Signed out, Deploy leads to the login page, which comes back here. */}
      <input type="hidden" name="intent" value="deploy" />
      {p.owner && <input type="hidden" name="owner" value={p.owner.slug} />}
      <Button type="submit" block disabled={(!hasSource && (hydrated || !p.commandEditable)) || !p.hostingOpen || busy !== null}>
        {busy === "deploy" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {busy === "deploy" ? DEPLOY_TEXT.processing : DEPLOY_TEXT.deploy}
      </Button>
      {!p.signedIn && (
        <>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            You will be asked to log in first; your keys stay encrypted and are only given to your own deployment.
          </p>
          <SignInLinks after={WAY_IN_TEXT.deployInvite} />
        </>
      )}
    </fetcher.Form>
  );
}
