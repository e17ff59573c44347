import { Link } from "react-router";
import { localCommand, type ConnectConfigs, type HostedConfigs } from "~/shared/connect";
import type { Deployability } from "~/shared/deployments";
import { WAY_IN_TEXT } from "~/shared/way-in";
import { CopyButton } from "../CopyButton";
import { SignInLinks } from "../SignInLinks";
import { Tabs } from "../Tabs";
import { linkClass } from "../ui";

/** A server page's pointer to the docs page. */
export function DocsHint() {
  return (
    <p className="mt-1 text-sm text-slate-600 dark:text-slate-400" data-testid="docs-hint">
      {WAY_IN_TEXT.docsHint}{" "}
      <Link to="/docs" className={linkClass}>
        {WAY_IN_TEXT.docsLink}
      </Link>
      .
    </p>
  );
}

// A catalogue entry's Connect card: each client's configuration for running it locally, or for
// reaching it where its publisher hosts it.

/** each client: its tab and where its configuration goes */
const CLIENTS = [
  ["claudeDesktop", "Claude Desktop", "claude_desktop_config.json"],
  ["claudeCode", "Claude Code", "Terminal"],
  ["cursor", "Cursor", "~/.cursor/mcp.json"],
  ["vscode", "VS Code", ".vscode/mcp.json"],
] as const;

export function ConnectSection({
  configs,
  remote,
  npxCommand,
  className,
  signedIn,
}: {
  /** null: not distributed as a package and not hosted by its publisher */
  configs: ConnectConfigs | HostedConfigs | null;
  remote: Extract<Deployability, { kind: "remote" }> | null;
  npxCommand: string | null;
  className: string;
  /** signed out, the way in: to deploy it here (a hosted URL) instead of running it locally */
  signedIn: boolean;
}) {
  return (
    <section className={className} aria-labelledby="connect">
      <h2 id="connect" className="text-lg font-semibold">
        Connect
      </h2>
      {!signedIn && <SignInLinks className="mt-1" after={WAY_IN_TEXT.connectInvite} />}
      <DocsHint />
      {configs ? (
        <>
          {remote ? (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400" data-testid="remote-url">
              Hosted by its publisher at <code className="break-all font-mono">{remote.url}</code>
              {remote.transport === "sse" ? " (the older SSE transport)" : ""}. Point your client at it.
            </p>
          ) : (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
              Run it locally through {localCommand(npxCommand)?.command ?? "npx"} from your client. Replace the placeholders with your own
              keys.
            </p>
          )}
          <Tabs
            label="Client"
            defaultValue="claudeDesktop"
            className="mt-4"
            listClassName="flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-800"
            tabClassName="-mb-px border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-600 hover:text-slate-900 data-[state=active]:border-indigo-600 data-[state=active]:text-indigo-700 dark:text-slate-400 dark:hover:text-white dark:data-[state=active]:text-indigo-300"
            panelClassName="mt-3 data-[state=inactive]:hidden"
            keepMounted
            tabs={CLIENTS.map(([v, label, where]) => ({
              value: v,
              label,
              panel: (
                <>
                  <div className="flex items-center justify-between text-xs text-slate-600 dark:text-slate-400">
                    <span>{where}</span>
                    <CopyButton text={configs[v]} />
                  </div>
                  <pre tabIndex={0} className="mt-2 overflow-x-auto rounded-lg bg-slate-100 p-3 text-sm dark:bg-slate-950">
                    <code className="font-mono">{configs[v]}</code>
                  </pre>
                </>
              ),
            }))}
          />
        </>
      ) : (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          This server is not distributed as an npm or PyPI package. See its repository for how to install and run it.
        </p>
      )}
    </section>
  );
}
