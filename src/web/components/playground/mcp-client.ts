import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import { label, LIMITS } from "./limits";

// The playground's MCP session: the official SDK client, loaded only when a playground opens,
// speaking to the deployment's gateway URL like any client. No key: the browser sends its
// sign-in cookie (same origin), which the gateway accepts for the deployment's owner.

export const CLIENT_INFO = { name: "switchboard-playground", version: "1.0.0" } as const;
/** Pages of a list followed; a server that pages forever stops here. */
const MAX_PAGES = 20;
/** Entries of a list kept. */
const MAX_LISTED = 1000;

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
  /** ends the session at the gateway (DELETE) and closes the transport */
  close: () => Promise<void>;
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

export async function connect(url: string, onLog: (entry: LogEntry) => void): Promise<Session> {
  const [{ Client }, { StreamableHTTPClientTransport }, { LoggingMessageNotificationSchema }, { UriTemplate }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/uriTemplate.js"),
  ]);
  // The gateway's path on this page's own origin: the sign-in cookie goes only there.
  const endpoint = new URL(new URL(url, window.location.href).pathname, window.location.origin);
  const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { credentials: "same-origin" },
  });
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptAll });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const p = n.params;
    const data = typeof p.data === "string" ? p.data : JSON.stringify(p.data) ?? "";
    onLog({ level: label(p.level, 20), logger: label(p.logger, 200), data: label(data, LIMITS.label) });
  });
  await client.connect(transport);
  const close = async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  };
  try {
    const caps = client.getServerCapabilities() ?? {};
    // Server log messages show while a call runs, down to debug.
    if (caps.logging) await client.setLoggingLevel("debug").catch(() => undefined);
    const [tools, prompts, resources, templates] = await Promise.all([
      caps.tools ? all<Tool>((cursor) => client.listTools({ cursor }), "tools") : [],
      caps.prompts ? all<Prompt>((cursor) => client.listPrompts({ cursor }), "prompts") : [],
      caps.resources ? all<Resource>((cursor) => client.listResources({ cursor }), "resources") : [],
      caps.resources ? all<ResourceTemplate>((cursor) => client.listResourceTemplates({ cursor }), "resourceTemplates") : [],
    ]);
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
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
