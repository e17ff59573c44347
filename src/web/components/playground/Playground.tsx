import { FlaskConical, Loader2, RotateCw } from "~/web/components/icons";
import { readableFailure } from "./failure";
import { isPlanLimit, PlanLinks } from "../DeployFields";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { DeploymentState } from "../../lib/use-deployment";
import { Button, NeedsScript } from "../ui";
import { appendCapped, batcher } from "./batch";
import { LIMITS } from "./limits";
import { connect, type LogEntry, type Session } from "./mcp-client";
import { PromptsTab } from "./PromptsTab";
import { ResourcesTab } from "./ResourcesTab";
import { PLAYGROUND_TEXT as T } from "./text";
import { ToolsTab } from "./ToolsTab";
import { Tabs } from "../Tabs";

// The playground (issue 18): the owner of a running deployment tries its tools, prompts and
// resources in the page. It speaks MCP through the gateway like any client, with the page's
// sign-in session, so its calls obey the same rules and are counted like any other client's.

interface Props {
  /** the page's poll of the viewer's own deployment (useDeployment) */
  state: DeploymentState;
  signedIn: boolean;
  /** the gateway's time limit for one request (GATEWAY_REQUEST_TIMEOUT_MS): the playground waits as long */
  gatewayTimeoutMs: number;
  className: string;
}

export function Playground({ state, signedIn, gatewayTimeoutMs, className }: Props) {
  const { deployment } = state;
  // A sleeping deployment is woken by the playground's first request: opening the page is using it.
  if (!signedIn || (deployment?.status !== "running" && deployment?.status !== "sleeping")) return null;
  return (
    <section className={className} aria-labelledby="playground" data-testid="playground">
      <h2 id="playground" className="flex items-center gap-2 text-lg font-semibold">
        <FlaskConical className="h-5 w-5 text-indigo-500" aria-hidden /> {T.title}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{T.intro}</p>
      {/* A new deployment (or URL) is a new MCP session. */}
      <Connection
        key={`${deployment.id} ${deployment.url}`}
        url={deployment.url}
        gatewayTimeoutMs={gatewayTimeoutMs}
        onStopping={state.onStopping}
        waking={deployment.status === "sleeping"}
      />
    </section>
  );
}

type Conn = { phase: "connecting" } | { phase: "ready"; session: Session } | { phase: "failed"; title: string; message: string };

function Connection({
  url,
  gatewayTimeoutMs,
  onStopping,
  waking,
}: {
  url: string;
  gatewayTimeoutMs: number;
  onStopping: DeploymentState["onStopping"];
  /** it sleeps: the first request wakes it, which takes a moment */
  waking: boolean;
}) {
  const [conn, setConn] = useState<Conn>({ phase: "connecting" });
  const [attempt, setAttempt] = useState(0);
  const [logs, setLogs] = useState<LogEntry[]>([]);
  // Log lines reach React at most once a frame: a server logging thousands a second stays cheap.
  const lines = useMemo(() => batcher<LogEntry>((more) => setLogs((all) => appendCapped(all, more, LIMITS.logLines)), LIMITS.logLines), []);
  const clearLogs = useCallback(() => {
    lines.clear();
    setLogs([]);
  }, [lines]);

  useEffect(() => {
    let gone = false;
    let session: Session | undefined;
    let unsubscribe = () => {};
    // The gateway forgot the session (idle too long, or a restart): every call would fail, so
    // say so and offer Retry, which starts a new session. Nothing runs again on its own.
    const onGone = () => {
      if (gone) return;
      gone = true;
      unsubscribe();
      lines.clear();
      setConn({ phase: "failed", title: T.sessionEnded, message: T.sessionLost });
      void session?.close();
    };
    const onToolsChanged = (tools: Session["tools"]) =>
      setConn((c) => (c.phase === "ready" ? { phase: "ready", session: { ...c.session, tools } } : c));
    connect(url, { onLog: (l) => lines.push(l), onGone, gatewayTimeoutMs, onToolsChanged }).then(
      (s) => {
        if (gone) return void s.close();
        session = s;
        setConn({ phase: "ready", session: s });
        // Stopping the deployment ends this session first, while the gateway still knows it.
        unsubscribe = onStopping(async () => {
          // Ended once: leaving the page afterwards does not end it again (a second DELETE the gateway answers 404).
          session = undefined;
          await s.close();
          setConn({ phase: "failed", title: T.sessionEnded, message: T.deploymentStopping });
        });
      },
      (e: unknown) => {
        if (!gone)
          setConn({ phase: "failed", title: T.connectFailed, message: readableFailure(e instanceof Error ? e.message : String(e)) });
      },
    );
    // Leaving the page, or the deployment stopping, ends the session at the gateway.
    return () => {
      gone = true;
      unsubscribe();
      lines.clear();
      void session?.close();
    };
  }, [url, attempt, gatewayTimeoutMs, lines, onStopping]);

  if (conn.phase === "connecting")
    return (
      <>
        <p className="mt-4 flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400" role="status">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> {waking ? T.waking : T.connecting}
        </p>
        <NeedsScript />
      </>
    );
  if (conn.phase === "failed")
    return (
      <div
        role="alert"
        className="mt-4 space-y-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-300"
      >
        <p className="font-medium">{conn.title}</p>
        <p className="whitespace-pre-wrap break-words text-xs">{conn.message}</p>
        {isPlanLimit(conn.message) && (
          <p className="text-xs">
            <PlanLinks />
          </p>
        )}
        <Button
          size="sm"
          variant="secondary"
          onClick={() => {
            setConn({ phase: "connecting" });
            setAttempt((n) => n + 1);
          }}
        >
          <RotateCw className="h-4 w-4" aria-hidden /> {T.retry}
        </Button>
      </div>
    );
  const s = conn.session;
  const tab =
    "-mb-px flex items-center gap-1.5 border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-600 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 data-[state=active]:border-indigo-600 data-[state=active]:text-indigo-700 dark:text-slate-400 dark:hover:text-white dark:data-[state=active]:text-indigo-300";
  const count = (n: number) => (
    <span className="rounded-full bg-slate-100 px-1.5 text-xs font-normal text-slate-600 dark:bg-slate-800 dark:text-slate-300">{n}</span>
  );
  return (
    <div className="mt-4">
      <p className="text-xs text-slate-600 dark:text-slate-400" role="status">
        {T.connectedTo} <span className="font-mono">{s.server.name || T.theServer}</span>
        {s.server.version && <span className="font-mono"> {s.server.version}</span>}
      </p>
      <Tabs
        label={T.title}
        defaultValue="tools"
        className="mt-3"
        listClassName="flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-800"
        tabClassName={tab}
        panelClassName="mt-4 focus-visible:outline-none data-[state=inactive]:hidden"
        keepMounted
        tabs={[
          {
            value: "tools",
            label: (
              <>
                {T.tabs.tools} {count(s.tools.length)}
              </>
            ),
            panel: <ToolsTab session={s} logs={logs} clearLogs={clearLogs} />,
          },
          {
            value: "prompts",
            label: (
              <>
                {T.tabs.prompts} {count(s.prompts.length)}
              </>
            ),
            panel: <PromptsTab session={s} />,
          },
          {
            value: "resources",
            label: (
              <>
                {T.tabs.resources} {count(s.resources.length + s.templates.length)}
              </>
            ),
            panel: <ResourcesTab session={s} />,
          },
        ]}
      />
    </div>
  );
}
