import type { RequiredKey } from "./catalog.js";

// Client configurations for running a catalogue server locally through npx.
export interface ConnectConfigs {
  claudeDesktop: string;
  claudeCode: string;
  cursor: string;
  vscode: string;
}

/** `npx -y pkg args` -> ["-y", "pkg", "args"]; null when the command is not an npx command. */
export function npxArgs(command: string | null | undefined): string[] | null {
  if (!command) return null;
  const parts = command.trim().split(/\s+/);
  if (parts[0] !== "npx" || parts.length < 2) return null;
  return parts.slice(1);
}

const placeholder = (k: RequiredKey) => `<your ${k.key}>`;

export function connectConfigs(id: string, npxCommand: string | null, keys: RequiredKey[] | null): ConnectConfigs | null {
  const args = npxArgs(npxCommand);
  if (!args) return null;
  const withY = args[0] === "-y" ? args : ["-y", ...args];
  const env = Object.fromEntries((keys ?? []).map((k) => [k.env_var, placeholder(k)]));
  const hasEnv = Object.keys(env).length > 0;
  const stdio = { command: "npx", args: withY, ...(hasEnv ? { env } : {}) };
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const envFlags = (keys ?? []).map((k) => `-e ${k.env_var}=${JSON.stringify(placeholder(k))}`).join(" ");
  const inputs = (keys ?? []).map((k) => ({ type: "promptString", id: k.env_var.toLowerCase().replace(/_/g, "-"), description: k.key, password: true }));
  const vsEnv = Object.fromEntries((keys ?? []).map((k) => [k.env_var, `\${input:${k.env_var.toLowerCase().replace(/_/g, "-")}}`]));
  return {
    claudeDesktop: json({ mcpServers: { [id]: stdio } }),
    claudeCode: `claude mcp add ${id}${envFlags ? ` ${envFlags}` : ""} -- npx ${withY.join(" ")}`,
    cursor: json({ mcpServers: { [id]: stdio } }),
    vscode: json({
      ...(inputs.length ? { inputs } : {}),
      servers: { [id]: { type: "stdio", command: "npx", args: withY, ...(inputs.length ? { env: vsEnv } : {}) } },
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
}

export const KEY_PLACEHOLDER = "<your API key>";

/** A config name for a server id: `owner/name` and other characters become dashes. */
export function clientName(serverId: string): string {
  return serverId.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "switchboard";
}

export function hostedConfigs(serverId: string, url: string): HostedConfigs {
  const name = clientName(serverId);
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const auth = `Bearer ${KEY_PLACEHOLDER}`;
  return {
    claudeCode: `claude mcp add --transport http ${name} ${url} --header "Authorization: ${auth}"`,
    cursor: json({ mcpServers: { [name]: { url, headers: { Authorization: auth } } } }),
    vscode: json({
      inputs: [{ type: "promptString", id: "switchboard-api-key", description: "Switchboard API key", password: true }],
      servers: { [name]: { type: "http", url, headers: { Authorization: "Bearer ${input:switchboard-api-key}" } } },
    }),
    claudeDesktop: json({ mcpServers: { [name]: { command: "npx", args: ["-y", "mcp-remote", url, "--header", `Authorization:${auth}`] } } }),
  };
}
