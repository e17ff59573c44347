import { useState } from "react";
import { Link } from "react-router";
import { hostedConfigs } from "../../shared/connect";
import { OAUTH_TEXT } from "../../shared/oauth";
import { useSite } from "../lib/root-data";
import { CopyButton } from "./CopyButton";
import { Button } from "./ui";

// How to point a client at a running deployment: the gateway URL plus one of the user's API keys,
// or, for connectors that sign in with OAuth, the URL alone (docs/product.md#oauth-connections).

const CLIENTS = [
  ["claudeCode", "Claude Code", "Terminal"],
  ["cursor", "Cursor", "~/.cursor/mcp.json"],
  ["vscode", "VS Code", ".vscode/mcp.json"],
  ["claudeDesktop", "Claude Desktop", "claude_desktop_config.json (through mcp-remote)"],
  ["claudeConnector", OAUTH_TEXT.connectorClaude, ""],
  ["chatgptConnector", OAUTH_TEXT.connectorChatGpt, ""],
] as const;

type ClientId = (typeof CLIENTS)[number][0];
const CONNECTORS: ReadonlySet<ClientId> = new Set(["claudeConnector", "chatgptConnector"]);

export function HostedConnect({ serverId, url }: { serverId: string; url: string }) {
  const [client, setClient] = useState<ClientId>("claudeCode");
  const site = useSite().name;
  const configs = { ...hostedConfigs(serverId, url), claudeConnector: url, chatgptConnector: url };
  const connector = CONNECTORS.has(client);
  const where = connector
    ? client === "claudeConnector"
      ? OAUTH_TEXT.connectorStepsClaude(site)
      : OAUTH_TEXT.connectorStepsChatGpt(site)
    : CLIENTS.find((c) => c[0] === client)![2];
  return (
    <div data-testid="hosted-connect">
      {connector ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {OAUTH_TEXT.connectorHint}{" "}
          <Link to="/servers/apikeys" className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
            {OAUTH_TEXT.connectedTitle}
          </Link>
          .
        </p>
      ) : (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Put an API key with the <code className="font-mono">mcp</code> scope in place of{" "}
          <code className="font-mono">&lt;your API key&gt;</code>:{" "}
          <Link
            to={`/servers/apikeys?for=${encodeURIComponent(serverId)}`}
            className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300"
          >
            create one for this server only
          </Link>{" "}
          or use one of your{" "}
          <Link to="/servers/apikeys" className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
            API keys
          </Link>
          .
        </p>
      )}
      <div role="radiogroup" aria-label="Client" className="mt-2 flex flex-wrap gap-1">
        {CLIENTS.map(([id, label]) => (
          <Button
            key={id}
            role="radio"
            aria-checked={client === id}
            onClick={() => setClient(id)}
            variant={client === id ? "primary" : "secondary"}
            size="xs"
          >
            {label}
          </Button>
        ))}
      </div>
      <div className="mt-2 flex items-center justify-between gap-2 text-xs text-slate-600 dark:text-slate-400">
        <span data-testid="hosted-connect-where">{where}</span>
        <CopyButton text={configs[client]} />
      </div>
      <pre
        tabIndex={0}
        className="mt-1 max-h-56 overflow-auto whitespace-pre-wrap break-all rounded-md bg-slate-100 p-2 text-xs dark:bg-slate-950"
      >
        <code className="font-mono">{configs[client]}</code>
      </pre>
    </div>
  );
}
