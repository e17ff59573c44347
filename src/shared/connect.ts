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
