import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { SandboxInfo } from "~/shared/deployments.js";
import type { ExitInfo } from "./sandbox/index.js";

// The seam between the platform and wherever deployments run. A Runner starts and stops
// processes and reports what happens to them as events; it never reads or writes the database.
// `features/deployments` owns every deployment row and turns these events into statuses. The
// bubblewrap runner on this machine (`LocalRunner`) is the first implementation; a runner for
// another machine or for containers implements the same interface.

/** Where a deployment's code comes from. */
export type Source =
  | { kind: "npm"; package: string; version: string | null; args: string[] }
  /** `command`: the console script to run (null: the one named like the package) */
  | { kind: "pypi"; package: string; version: string | null; command: string | null; args: string[] }
  /** `module`: a Python repository's `python -m` module (else its console script, or a Node.js entry point) */
  | { kind: "git"; url: string; args: string[]; module?: string }
  /** a container image (`registry/repository:tag` or `@sha256:...`, canonical): its entrypoint, with `args` in place of its Cmd when given */
  /** `port`: it speaks streamable HTTP at /mcp on that port inside its sandbox (`-p`), else stdio */
  | { kind: "image"; image: string; args: string[]; port?: number }
  /**
   * a connection: a remote server reached over HTTP with the owner's headers (its secrets); `name`
   * is what its owner calls it; `oauth`: signed in to the server's authorization server (the
   * spec's `auth` holds the grant)
   */
  | { kind: "remote"; url: string; transport: "streamable-http" | "sse"; name: string; oauth?: boolean }
  /**
   * a toolset: several of its owner's deployments and connections behind one server; `token_hash`
   * names the credential (sealed in its secrets) with which it reaches them at their gateway
   */
  | { kind: "toolset"; name: string; members: ToolsetMemberRef[]; token_hash: string };

/** A toolset's member as stored: the deployment (a connection is one), its prefix, the tools it exposes (null: all). */
export interface ToolsetMemberRef {
  deployment_id: string;
  prefix: string;
  tools: string[] | null;
}

/** A toolset's member as its runner reaches it: at its Switchboard URL, with its prefix and the tools it exposes. */
export interface ToolsetMember {
  prefix: string;
  /** the member's Switchboard URL (`{PUBLIC_URL}/{proxy_id}/mcp`) */
  url: string;
  /** the member's tools the toolset exposes; null: all */
  tools: string[] | null;
}

export interface ToolsetSpec {
  name: string;
  /** the toolset's credential at its members' gateway (masked in its output) */
  token: string;
  members: ToolsetMember[];
}

/** What runs in the sandbox (everything but a connection or a toolset). */
export type HostedSource = Exclude<Source, { kind: "remote" } | { kind: "toolset" }>;

/** A connection or a toolset: no process of ours, so no running slot of a plan and no memory reserved. */
export const LINKED_KINDS = ["remote", "toolset"] as const;

/** How a source reads to its owner: `npm:pkg@1.0.0`, `pypi:pkg==1.0.0`, or the repository URL. */
export function describeSource(src: Source): string {
  if (src.kind === "npm") return `npm:${src.package}${src.version ? `@${src.version}` : ""}`;
  if (src.kind === "pypi") return `pypi:${src.package}${src.version ? `==${src.version}` : ""}${src.command ? ` (${src.command})` : ""}`;
  if (src.kind === "remote") return `remote:${src.url}${src.transport === "sse" ? " (SSE)" : ""}`;
  if (src.kind === "toolset") return `toolset:${src.members.map((m) => m.prefix).join(",")}`;
  if (src.kind === "image") return `image:${src.image}${src.port ? ` (streamable HTTP on port ${src.port})` : ""}`;
  return src.url;
}

/** Everything a runner needs to start one deployment. */
export interface DeploymentSpec {
  id: string;
  source: Source;
  /** the owner's keys, already decrypted: passed to the server as environment variables and masked in its logs */
  env: Record<string, string>;
  /** a connection signed in with OAuth: its tokens, refreshed and stored back as they change */
  auth?: UpstreamAuth;
  /** a toolset: its members at their Switchboard URLs (its credential is in `env`) */
  toolset?: ToolsetSpec;
}

/** A connection's OAuth sign-in as the runner holds it: the SDK's provider, and the values to mask in logs. */
export interface UpstreamAuth extends OAuthClientProvider {
  secretValues(): string[];
}

/** What the server listed when it answered initialize. */
export interface Listing {
  tools: unknown[];
  prompts: unknown[];
  resources: unknown[];
  resourceTemplates: unknown[];
  /** which lists are whole (every page listed): only a whole list pins definitions or tells which ones went away */
  complete: { tools: boolean; prompts: boolean; resourceTemplates: boolean };
}

/** How a process ended, in words an owner can read ("Exited with code 1", "Killed by SIGKILL", "Out of memory ..."). */
export interface Exit {
  reason: string;
  code: number | null;
}

/**
 * What the platform says its clients can do, in every initialize it sends a server: all a client
 * behind the gateway may declare. Servers such as server-everything list some tools only to
 * clients that declare sampling, elicitation or roots; the platform's own listing (which pins the
 * definitions) must see what the gateway's clients will see.
 */
export const PLATFORM_CLIENT_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

/** What a call gets when its server's answer could be read but not passed on (nested deeper than JSON tools cope with). */
export const ANSWER_TOO_DEEP = "The server's answer is nested too deeply to pass on";

export type RunnerEvent =
  | { type: "installing" }
  | { type: "starting" }
  /** the process exists (its pid pairs with `pidStart` so a later platform can tell it is the same process) */
  | { type: "spawned"; pid: number; pidStart: string | null }
  | { type: "running"; listing: Listing | null }
  /** it never got to run: `detail` says why (with the last lines of its output) */
  | { type: "failed"; detail: string; code: number | null }
  /** it ran and ended; it starts again after `restartInMs` (`looping`: it keeps crashing) */
  | { type: "crashed"; exit: Exit; detail: string; restartInMs: number; looping: boolean };

/** Receives a deployment's events in order; the runner waits for each before going on. */
export type RunnerEvents = (id: string, event: RunnerEvent) => Promise<void>;

/**
 * A message the server cannot take now: it is not reading its input and the platform already
 * holds as much for it as it may (DEPLOY_STDIN_BUFFER_BYTES). The client gets `message` as its error.
 */
export class InputFull extends Error {
  constructor(limitBytes: number) {
    super(
      `The MCP server is not reading its input: the platform holds at most ${Math.round(limitBytes / 1024 / 1024)} MB of requests for it. Try again once it has caught up.`,
    );
    this.name = "InputFull";
  }
}

/** How much a server may make the platform do for it: the defaults of the DEPLOY_* settings below. */
export interface FlowLimits {
  /** bytes of requests held for a server that is not reading its stdin (DEPLOY_STDIN_BUFFER_BYTES) */
  stdinBytes: number;
  /** lines (messages and log lines) a second the platform reads from a server (DEPLOY_MESSAGES_PER_SECOND); beyond, it stops reading until the budget refills */
  messagesPerSecond: number;
  /** bytes a second the platform reads from a server (DEPLOY_OUTPUT_BYTES_PER_SECOND) */
  bytesPerSecond: number;
  /** a server held back by its budget this long without a break is stopped as failed (DEPLOY_FLOOD_STOP_MS) */
  floodStopMs: number;
}

/** Reading, parsing and passing on a server's output costs the platform about 5 to 25 ms a MB (by machine): 8 MB a second keeps one server's share well below a core. */
export const DEFAULT_FLOW: FlowLimits = {
  stdinBytes: 4 * 1024 * 1024,
  messagesPerSecond: 5000,
  bytesPerSecond: 8 * 1024 * 1024,
  floodStopMs: 60_000,
};

/** What the platform did for one server: what it read and what that cost it (metrics). */
export interface OutputStats {
  /** lines read from stdout and stderr */
  lines: number;
  bytes: number;
  /** milliseconds the platform held back reading because the budget was spent */
  throttledMs: number;
  /** seconds of the platform's event loop spent handling the output */
  cpuSeconds: number;
  /** bytes of requests written to its stdin that it has not read yet (held by the platform) */
  inputHeldBytes: number;
}

/** The MCP connection to a running server, as the gateway sees it: newline-delimited JSON-RPC. */
export interface McpChannel {
  /** throws once the server has exited */
  send(msg: JSONRPCMessage): void;
  /** every JSON-RPC message the server writes; returns the unsubscribe function */
  onMessage(cb: (msg: JSONRPCMessage) => void): () => void;
  /** resolves with the reason when the server's process ends */
  readonly exited: Promise<string>;
}

/**
 * What runs a deployment, as the runner supervises it: a process in the sandbox (child.ts) or the
 * link to a remote server (remote-link.ts). Both give JSON-RPC messages and end with a reason.
 */
export interface ServerLink {
  /** the process (null for a remote server) and its start time */
  readonly pid: number | null;
  readonly pidStart: string | null;
  readonly exited: Promise<ExitInfo>;
  readonly running: boolean;
  send(msg: JSONRPCMessage): void;
  onMessage(cb: (msg: JSONRPCMessage) => void): () => void;
  onFlood(cb: (notice: string) => void): void;
  logs(): string[];
  rssBytes(): number;
  outputStats(): OutputStats;
  stop(graceMs?: number): Promise<ExitInfo>;
}

export interface Runner {
  /** what isolates deployments here, shown to admins */
  readonly sandbox: SandboxInfo;
  /** Where events go (one receiver: the deployments feature). */
  onEvents(handler: RunnerEvents): void;
  /** Starts a deployment in the background and keeps it running (restarts after a crash); progress arrives as events. */
  start(spec: DeploymentSpec): void;
  /** Stops everything the deployment runs and frees its resources (directory, uid, volume); `keep`: it sleeps, its volume stays for its next start. */
  stop(id: string, opts?: { keep?: boolean }): Promise<void>;
  /** Whether this runner is responsible for the deployment (running, starting or waiting to restart). */
  runs(id: string): boolean;
  /** The server's MCP channel once it has answered initialize, else undefined. */
  channel(id: string): McpChannel | undefined;
  /** The last lines of its output (kept across restarts), or null if this runner does not run it. */
  logs(id: string): string[] | null;
  rssBytes(id: string): number;
  /** What the platform read from its server and what that cost (undefined when it does not run here). */
  outputStats(id: string): OutputStats | undefined;
  /** Kills a process a previous platform left behind, if `pid` still is that process. */
  reap(pid: number, pidStart: string): void;
  /** Stops every deployment (their rows stay, to be started again next time) and releases what the runner holds. */
  shutdown(): Promise<void>;
}
