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

export function hostedConfigs(serverId: string, url: string): HostedConfigs {
  return remoteConfigs(serverId, url, "streamable-http", `Bearer ${KEY_PLACEHOLDER}`);
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
  };
}
