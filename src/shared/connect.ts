import type { RequiredKey } from "./catalog.js";

// Client configurations for running a catalogue server locally through npx, uvx or docker.
export interface ConnectConfigs {
  claudeDesktop: string;
  claudeCode: string;
  cursor: string;
  vscode: string;
}

/** `npx -y pkg args` -> ["-y", "pkg", "args"]; null when the command is not an npx command. */
export function npxArgs(command: string | null | undefined): string[] | null {
  const local = localCommand(command);
  return local?.command === "npx" ? local.args : null;
}

/** The program and arguments of an `npx ...`, `uvx ...` or `docker run ...` command; null for anything else. */
export function localCommand(command: string | null | undefined): { command: "npx" | "uvx" | "docker"; args: string[] } | null {
  if (!command) return null;
  const parts = command.trim().split(/\s+/);
  if (parts.length < 2) return null;
  if (parts[0] === "npx" || parts[0] === "uvx") return { command: parts[0], args: parts.slice(1) };
  // An image runs locally as it does here: docker run -i, the keys passed by name from the client's env.
  // One that speaks HTTP (-p, no -i) is no local stdio command: its hosted URL is the way in.
  if (parts[0] === "docker" && parts[1] === "run" && parts.length > 2 && parts.includes("-i"))
    return { command: "docker", args: parts.slice(1) };
  return null;
}

const placeholder = (k: RequiredKey) => `<your ${k.key}>`;

export function connectConfigs(id: string, npxCommand: string | null, keys: RequiredKey[] | null): ConnectConfigs | null {
  const local = localCommand(npxCommand);
  if (!local) return null;
  const program = local.command;
  const args = local.args;
  const withY = program !== "npx" || args[0] === "-y" ? args : ["-y", ...args];
  const env = Object.fromEntries((keys ?? []).map((k) => [k.env_var, placeholder(k)]));
  const hasEnv = Object.keys(env).length > 0;
  const stdio = { command: program, args: withY, ...(hasEnv ? { env } : {}) };
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const envFlags = (keys ?? []).map((k) => `-e ${shellWord(`${k.env_var}=${placeholder(k)}`)}`).join(" ");
  const inputs = (keys ?? []).map((k) => ({
    type: "promptString",
    id: k.env_var.toLowerCase().replace(/_/g, "-"),
    description: k.key,
    password: true,
  }));
  const vsEnv = Object.fromEntries((keys ?? []).map((k) => [k.env_var, `\${input:${k.env_var.toLowerCase().replace(/_/g, "-")}}`]));
  return {
    claudeDesktop: json({ mcpServers: { [id]: stdio } }),
    claudeCode: `claude mcp add ${id}${envFlags ? ` ${envFlags}` : ""} -- ${program} ${withY.map(shellWord).join(" ")}`,
    cursor: json({ mcpServers: { [id]: stdio } }),
    vscode: json({
      ...(inputs.length ? { inputs } : {}),
      servers: { [id]: { type: "stdio", command: program, args: withY, ...(inputs.length ? { env: vsEnv } : {}) } },
    }),
  };
}

// Client configurations for a hosted deployment, reached through the gateway with an API key.
export interface HostedConfigs {
  claudeCode: string;
  cursor: string;
  vscode: string;
  /** clients that speak only stdio: the mcp-remote bridge */
  claudeDesktop: string;
  /** any other client: the address, its transport and the header, as a person types them in */
  plain: string;
}

export const KEY_PLACEHOLDER = "<your API key>";

/** A config name for a server id: `owner/name` and other characters become dashes. */
export function clientName(serverId: string): string {
  return (
    serverId
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "switchboard"
  );
}

/**
 * A deployment's configurations, with `apiKey` in them when the page has one to show (a key just
 * made from this page, shown this once) and the placeholder otherwise. VS Code's file keeps asking
 * for the key (its input prompt keeps it in VS Code's secret storage): `.vscode/mcp.json` sits in a
 * workspace that is often committed.
 */
export function hostedConfigs(serverId: string, url: string, apiKey?: string): HostedConfigs {
  const configs = remoteConfigs(serverId, url, "streamable-http", `Bearer ${apiKey ?? KEY_PLACEHOLDER}`);
  const sse = olderSseUrl(url);
  return sse ? { ...configs, plain: `${configs.plain}\nOlder clients (HTTP+SSE transport): ${sse}` } : configs;
}

/** A deployment's `/sse` address (the older HTTP+SSE transport) beside its `/mcp` one; null for any other URL. */
export function olderSseUrl(url: string): string | null {
  return /\/mcp$/.test(url) ? url.replace(/\/mcp$/, "/sse") : null;
}

/** UTF-8 text as base64, in the browser and on the server alike. */
function base64(text: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * One-click installs of a deployment with its key: Cursor's deeplink (`config` is the server's
 * mcp.json entry, base64) and VS Code's `vscode:mcp/install` link (the entry with its name, as
 * JSON). Offered only with a real key: a link with a placeholder would install a client that fails.
 * They open the app on the user's own machine; the browser keeps no history of them.
 */
export function installLinks(serverId: string, url: string, apiKey: string): { cursor: string; vscode: string } {
  const name = clientName(serverId);
  const headers = { Authorization: `Bearer ${apiKey}` };
  return {
    cursor: `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64(JSON.stringify({ url, headers })))}`,
    vscode: `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name, type: "http", url, headers }))}`,
  };
}

/**
 * A word for a POSIX shell (and zsh): as it is when every character is plain, else single-quoted.
 * `?`, `#`, `~`, `*` and a leading `=` mean something to some shell, so they are quoted too.
 */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9._/:@%+,-][A-Za-z0-9._/:@%+,=-]*$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A server reached over the network: a deployment through the gateway (with an API key), or a
 * server its publisher hosts (no key of ours; SSE for the deprecated transport).
 */
export function remoteConfigs(serverId: string, url: string, transport: "streamable-http" | "sse", auth?: string): HostedConfigs {
  const name = clientName(serverId);
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const type = transport === "sse" ? "sse" : "http";
  const headers = auth ? { Authorization: auth } : undefined;
  return {
    claudeCode: `claude mcp add --transport ${type} ${name} ${shellWord(url)}${auth ? ` --header "Authorization: ${auth}"` : ""}`,
    cursor: json({ mcpServers: { [name]: { url, ...(headers ? { headers } : {}) } } }),
    vscode: json(
      auth
        ? {
            inputs: [{ type: "promptString", id: "switchboard-api-key", description: "Switchboard API key", password: true }],
            servers: { [name]: { type, url, headers: { Authorization: "Bearer ${input:switchboard-api-key}" } } },
          }
        : { servers: { [name]: { type, url } } },
    ),
    claudeDesktop: json({
      mcpServers: { [name]: { command: "npx", args: ["-y", "mcp-remote", url, ...(auth ? ["--header", `Authorization:${auth}`] : [])] } },
    }),
    plain: [
      `URL: ${url}`,
      `Transport: ${transport === "sse" ? "HTTP+SSE (the older transport)" : "Streamable HTTP"}`,
      ...(auth ? [`Header: Authorization: ${auth}`] : []),
    ].join("\n"),
  };
}
