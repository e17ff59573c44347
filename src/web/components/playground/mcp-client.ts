import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import { label, LIMITS } from "./limits";
import { sessionGone } from "./result-model";
import type { CallOptions } from "./use-call";

// The playground's MCP session: the official SDK client, loaded only when a playground opens,
// speaking to the deployment's gateway URL like any client. No key: the browser sends its
// sign-in cookie (same origin), which the gateway accepts for the deployment's owner.

export const CLIENT_INFO = { name: "switchboard-playground", version: "1.0.0" } as const;
/** Pages of a list followed; a server that pages forever stops here. */
const MAX_PAGES = 20;
/** Entries of a list kept. */
const MAX_LISTED = 1000;
/**
 * Added to the gateway's own request time limit: the playground waits as long as any client, so
 * a slow call ends with the gateway's answer rather than an earlier one of the browser's.
 */
const TIMEOUT_MARGIN_MS = 30_000;

export interface LogEntry {
  level: string;
  logger: string;
  data: string;
}

export interface Session {
  client: Client;
  server: { name: string; version: string };
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  templates: ResourceTemplate[];
  /** the variable names of a resource template's URI */
  variables: (template: string) => string[];
  expand: (template: string, values: Record<string, string>) => string;
  /**
   * One request of a tab: `fn` gets the options every request takes (the tab's signal and
   * progress, the gateway's time limit). A failure meaning the gateway no longer knows the
   * session is also reported to `onGone`.
   */
  request: <T>(o: CallOptions, fn: (client: Client, options: RequestOptions) => Promise<T>) => Promise<T>;
  /** ends the session at the gateway (DELETE) and closes the transport */
  close: () => Promise<void>;
}

export interface ConnectOptions {
  onLog: (entry: LogEntry) => void;
  /** the gateway no longer knows the session (it expired, or the platform restarted) */
  onGone: (e: unknown) => void;
  /** the gateway's time limit for one request (GATEWAY_REQUEST_TIMEOUT_MS) */
  gatewayTimeoutMs: number;
  /** the server's (or the owner's choice of) tools changed: the list as it is now */
  onToolsChanged?: (tools: Tool[]) => void;
}

// The SDK checks tool results against their output schemas with Ajv, which compiles code at run
// time: the site's CSP forbids that, and the playground shows what a server sent in any case.
const acceptAll = {
  getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }),
};

async function all<T>(first: (cursor?: string) => Promise<{ nextCursor?: string } & Record<string, unknown>>, key: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && out.length < MAX_LISTED; page++) {
    const r = await first(cursor);
    const items = r[key];
    if (Array.isArray(items)) out.push(...(items as T[]));
    cursor = typeof r.nextCursor === "string" && r.nextCursor ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  return out.slice(0, MAX_LISTED);
}

/**
 * fetch, except that a 204 comes back with no body at all. The gateway answers 204 when a stream
 * the client resumes has ended with nothing left to send (a cancelled call's); Chrome hands the
 * SDK an empty body for it, which the SDK takes for a dropped stream and asks again for, without
 * the event id: a second GET stream, refused with 409. With no body the SDK rests.
 */
async function quietResume(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const r = await fetch(input, init);
  return r.status === 204 ? new Response(null, { status: 204, headers: r.headers }) : r;
}

export async function connect(url: string, { onLog, onGone, gatewayTimeoutMs, onToolsChanged }: ConnectOptions): Promise<Session> {
  const [
    { Client },
    { StreamableHTTPClientTransport },
    { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema },
    { UriTemplate },
  ] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/uriTemplate.js"),
  ]);
  // The gateway's path on this page's own origin: the sign-in cookie goes only there.
  const endpoint = new URL(new URL(url, window.location.href).pathname, window.location.origin);
  const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { credentials: "same-origin" },
    fetch: quietResume,
  });
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptAll });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const p = n.params;
    const data = typeof p.data === "string" ? p.data : (JSON.stringify(p.data) ?? "");
    onLog({ level: label(p.level, 20), logger: label(p.logger, 200), data: label(data, LIMITS.label) });
  });
  let closing = false;
  // Transport errors include the standalone GET stream: after a restart its reconnect gets 404.
  client.onerror = (e) => {
    if (!closing && sessionGone(e)) onGone(e);
  };
  const timeout = gatewayTimeoutMs + TIMEOUT_MARGIN_MS;
  await client.connect(transport, { timeout });
  const close = async () => {
    closing = true;
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  };
  try {
    const caps = client.getServerCapabilities() ?? {};
    // Server log messages show while a call runs, down to debug.
    if (caps.logging) await client.setLoggingLevel("debug", { timeout }).catch(() => undefined);
    const [tools, prompts, resources, templates] = await Promise.all([
      caps.tools ? all<Tool>((cursor) => client.listTools({ cursor }, { timeout }), "tools") : [],
      caps.prompts ? all<Prompt>((cursor) => client.listPrompts({ cursor }, { timeout }), "prompts") : [],
      caps.resources ? all<Resource>((cursor) => client.listResources({ cursor }, { timeout }), "resources") : [],
      caps.resources ? all<ResourceTemplate>((cursor) => client.listResourceTemplates({ cursor }, { timeout }), "resourceTemplates") : [],
    ]);
    // The tool list changed (a new server version, the owner hid or showed tools): list it again.
    if (caps.tools && onToolsChanged) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        void all<Tool>((cursor) => client.listTools({ cursor }, { timeout }), "tools").then(onToolsChanged, () => undefined);
      });
    }
    const v = client.getServerVersion();
    return {
      client,
      server: { name: label(v?.name, 200), version: label(v?.version, 80) },
      tools,
      prompts,
      resources,
      templates,
      variables: (t) => {
        try {
          return new UriTemplate(t).variableNames.slice(0, 50);
        } catch {
          return [];
        }
      },
      expand: (t, values) => new UriTemplate(t).expand(values),
      request: async (o, fn) => {
        try {
          return await fn(client, { signal: o.signal, onprogress: o.onprogress, timeout, resetTimeoutOnProgress: true });
        } catch (e) {
          if (!closing && !o.signal.aborted && sessionGone(e)) onGone(e);
          throw e;
        }
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
