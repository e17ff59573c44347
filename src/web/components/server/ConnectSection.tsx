import * as Tabs from "@radix-ui/react-tabs";
import { localCommand, type ConnectConfigs, type HostedConfigs } from "~/shared/connect";
import type { Deployability } from "~/shared/deployments";
import { CopyButton } from "../CopyButton";

// A catalogue entry's Connect card: each client's configuration for running it locally, or for
// reaching it where its publisher hosts it.

const CLIENTS = [
  ["claudeDesktop", "Claude Desktop"],
  ["claudeCode", "Claude Code"],
  ["cursor", "Cursor"],
  ["vscode", "VS Code"],
] as const;

const WHERE = [
  ["claudeDesktop", "claude_desktop_config.json"],
  ["claudeCode", "Terminal"],
  ["cursor", "~/.cursor/mcp.json"],
  ["vscode", ".vscode/mcp.json"],
] as const;

export function ConnectSection({
  configs,
  remote,
  npxCommand,
  className,
}: {
  /** null: not distributed as a package and not hosted by its publisher */
  configs: ConnectConfigs | HostedConfigs | null;
  remote: Extract<Deployability, { kind: "remote" }> | null;
  npxCommand: string | null;
  className: string;
}) {
  return (
    <section className={className} aria-labelledby="connect">
      <h2 id="connect" className="text-lg font-semibold">
        Connect
      </h2>
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
          <Tabs.Root defaultValue="claudeDesktop" className="mt-4">
            <Tabs.List aria-label="Client" className="flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-800">
              {CLIENTS.map(([v, label]) => (
                <Tabs.Trigger
                  key={v}
                  value={v}
                  className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-600 hover:text-slate-900 data-[state=active]:border-indigo-600 data-[state=active]:text-indigo-700 dark:text-slate-400 dark:hover:text-white dark:data-[state=active]:text-indigo-300"
                >
                  {label}
                </Tabs.Trigger>
              ))}
            </Tabs.List>
            {WHERE.map(([v, where]) => (
              <Tabs.Content key={v} value={v} className="mt-3 data-[state=inactive]:hidden" forceMount>
                <div className="flex items-center justify-between text-xs text-slate-600 dark:text-slate-400">
                  <span>{where}</span>
                  <CopyButton text={configs[v]} />
                </div>
                <pre tabIndex={0} className="mt-2 overflow-x-auto rounded-lg bg-slate-100 p-3 text-sm dark:bg-slate-950">
                  <code className="font-mono">{configs[v]}</code>
                </pre>
              </Tabs.Content>
            ))}
          </Tabs.Root>
        </>
      ) : (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          This server is not distributed as an npm or PyPI package. See its repository for how to install and run it.
        </p>
      )}
    </section>
  );
}
