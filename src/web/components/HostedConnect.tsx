import { useState } from "react";
import { Link, useLocation } from "react-router";
import { hostedConfigs, installLinks, olderSseUrl } from "../../shared/connect";
import { OAUTH_TEXT } from "../../shared/oauth";
import { connectorReach } from "../../shared/public-address";
import { WAY_IN_TEXT } from "../../shared/way-in";
import { useSite } from "../lib/root-data";
import { CopyButton } from "./CopyButton";
import { Alert, Button, buttonClass } from "./ui";

// How to point a client at a running deployment: the gateway URL plus one of the user's API keys,
// or, for connectors that sign in with OAuth, the URL alone (docs/product.md#oauth-connections).
// Right after a key was made from this page, it is filled in everywhere, this once
// (lib/new-key-flash.server.ts), with Cursor's and VS Code's one-click install links.

/** A key made from this page for this server, as its page shows it once. */
export interface NewKey {
  name: string;
  value: string;
}

const CLIENTS = [
  ["claudeCode", "Claude Code", "Terminal"],
  ["cursor", "Cursor", "~/.cursor/mcp.json"],
  ["vscode", "VS Code", ".vscode/mcp.json"],
  ["claudeDesktop", "Claude Desktop", "claude_desktop_config.json (through mcp-remote)"],
  ["plain", WAY_IN_TEXT.plainLabel, WAY_IN_TEXT.plainWhere],
  ["claudeConnector", OAUTH_TEXT.connectorClaude, ""],
  ["chatgptConnector", OAUTH_TEXT.connectorChatGpt, ""],
] as const;

type ClientId = (typeof CLIENTS)[number][0];
const CONNECTORS: ReadonlySet<ClientId> = new Set(["claudeConnector", "chatgptConnector"]);
const link = "text-indigo-700 underline underline-offset-2 dark:text-indigo-300";

export function HostedConnect({ serverId, url, newKey }: { serverId: string; url: string; newKey?: NewKey | null }) {
  const [client, setClient] = useState<ClientId>("claudeCode");
  const site = useSite().name;
  const { pathname } = useLocation();
  const configs = { ...hostedConfigs(serverId, url, newKey?.value), claudeConnector: url, chatgptConnector: url };
  const install = newKey && (client === "cursor" || client === "vscode") ? installLinks(serverId, url, newKey.value) : null;
  const connector = CONNECTORS.has(client);
  const unreachable = connector ? connectorReach(url) : null;
  const app = client === "claudeConnector" ? "Claude.ai" : "ChatGPT";
  const where = connector
    ? client === "claudeConnector"
      ? OAUTH_TEXT.connectorStepsClaude(site)
      : OAUTH_TEXT.connectorStepsChatGpt(site)
    : CLIENTS.find((c) => c[0] === client)![2];
  // From a server's own page the key page comes back here with the key (a same-site path the key
  // page checks against the server it is made for).
  const onServerPage = pathname === `/server/${serverId}`;
  const forThisServer = `/servers/apikeys?for=${encodeURIComponent(serverId)}${onServerPage ? `&back=${encodeURIComponent(pathname)}` : ""}`;
  const sse = olderSseUrl(url);
  return (
    <div data-testid="hosted-connect">
      {newKey && (
        <div
          className="mb-3 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-200"
          data-testid="new-key-filled"
          role="status"
        >
          <p className="font-semibold">{WAY_IN_TEXT.newKeyTitle(newKey.name)}</p>
          <p className="mt-1 text-xs">{WAY_IN_TEXT.newKeyOnce}</p>
          <div className="mt-2 flex items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded bg-white px-2 py-1 font-mono text-xs dark:bg-slate-950" title={newKey.value}>
              {newKey.value}
            </code>
            <CopyButton text={newKey.value} label="Copy key" />
          </div>
        </div>
      )}
      {connector ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {OAUTH_TEXT.connectorHint}{" "}
          <Link to="/servers/apikeys" className={link}>
            {OAUTH_TEXT.connectedTitle}
          </Link>
          .
        </p>
      ) : newKey ? null : (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Put an API key with the <code className="font-mono">mcp</code> scope in place of{" "}
          <code className="font-mono">&lt;your API key&gt;</code>:{" "}
          <Link to={forThisServer} className={link}>
            create one for this server only
          </Link>{" "}
          or use one of your{" "}
          <Link to="/servers/apikeys" className={link}>
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
      {unreachable && (
        <div className="mt-2" data-testid="connector-unreachable">
          <Alert kind="warning">
            {WAY_IN_TEXT.unreachable(app, url, unreachable)} {WAY_IN_TEXT.unreachableFix}
          </Alert>
        </div>
      )}
      {(client === "cursor" || client === "vscode") && (
        <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
          {install ? (
            <>
              <a href={client === "cursor" ? install.cursor : install.vscode} className={buttonClass("primary", "xs")}>
                {client === "cursor" ? WAY_IN_TEXT.installCursor : WAY_IN_TEXT.installVscode}
              </a>
              <span>{WAY_IN_TEXT.installHint}</span>
            </>
          ) : (
            <span>{WAY_IN_TEXT.installNeedsKey}</span>
          )}
        </div>
      )}
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
      {sse && client !== "plain" && (
        <p className="mt-2 break-all text-xs text-slate-600 dark:text-slate-400" data-testid="older-sse">
          Older clients (the HTTP+SSE transport): <code className="font-mono">{sse}</code>
        </p>
      )}
    </div>
  );
}
