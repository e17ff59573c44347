import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ExitInfo } from "./child.js";
import { PLATFORM_CLIENT_CAPABILITIES, type Listing, type McpChannel, type ServerLink } from "../runner.js";

// The platform's own MCP conversation with a server it started: initialize (within the start
// timeout) and one listing of its tools, prompts and resources. Everything else on the server's
// stdio belongs to the gateway's clients, through the channel.

/** "Exited with code 1", "Killed by SIGKILL", or the sandbox's own reason (out of memory, ...). */
export function describeExit(e: ExitInfo): string {
  return e.reason ?? (e.signal ? `Killed by ${e.signal}` : `Exited with code ${e.code}`);
}

/** The SDK client speaking to a server over its link (a child's stdio lines, or a remote server's HTTP). */
class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (e: Error) => void;
  onmessage?: (m: JSONRPCMessage) => void;
  private off?: () => void;
  constructor(private readonly child: ServerLink) {}
  async start() {
    // Only answers to the platform's own (numeric) request ids reach the SDK client: the gateway's
    // sessions use string ids, and the other server-to-client requests and notifications belong
    // to the gateway's clients. The server's pings are answered here, even before any client
    // connects, without the SDK's validation of each message (a server may send thousands).
    this.off = this.child.onMessage((m) => {
      if ("method" in m) {
        const id = (m as { id?: unknown }).id;
        if (m.method === "ping" && (typeof id === "string" || typeof id === "number")) this.pong(id);
        return;
      }
      if (typeof (m as { id?: unknown }).id === "number") this.onmessage?.(m);
    });
    void this.child.exited.then(() => this.onclose?.());
  }
  async send(m: JSONRPCMessage) {
    this.child.send(m);
  }
  private pong(id: string | number) {
    try {
      this.child.send({ jsonrpc: "2.0", id, result: {} });
    } catch {
      // exited, or not reading its input: a ping it cannot take needs no answer
    }
  }
  async close() {
    this.off?.();
  }
}

/** Connects the platform's client; rejects if the server exits first or does not answer in time. */
export async function initialize(child: ServerLink, timeoutMs: number): Promise<Client> {
  // The capabilities the gateway declares too: the listing that pins definitions sees every tool its clients may.
  const client = new Client({ name: "switchboard", version: "0.1.0" }, { capabilities: PLATFORM_CLIENT_CAPABILITIES });
  let timer: NodeJS.Timeout | undefined;
  const exitedEarly = child.exited.then((e) => Promise.reject(new Error(`${describeExit(e)} before answering initialize`)));
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer to initialize within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(new ChildTransport(child)), exitedEarly, timeout]);
    return client;
  } finally {
    clearTimeout(timer);
  }
}

/** Pages of one listing followed at most this far: a server that never stops paging is listed in part. */
const MAX_PAGES = 20;

/** Every page of one listing (undefined when the server refused it): `complete` when the last page said so. */
async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
): Promise<{ items: T[]; complete: boolean } | undefined> {
  const items: T[] = [];
  let cursor: string | undefined;
  try {
    for (let n = 0; n < MAX_PAGES; n++) {
      const r = await page(cursor);
      items.push(...r.items);
      if (!r.nextCursor) return { items, complete: true };
      cursor = r.nextCursor;
    }
    return { items, complete: false };
  } catch {
    return items.length ? { items, complete: false } : undefined;
  }
}

/**
 * What the server offers, as it answers right after initialize: every page of its tools, prompts,
 * resources and resource templates. `complete` says which lists are whole (a capability the server
 * does not have is a whole, empty list), which is what pinning definitions needs.
 */
export async function listing(client: Client): Promise<Listing> {
  const caps = client.getServerCapabilities() ?? {};
  const opts = { timeout: 15_000 };
  const none = { items: [], complete: true };
  const [tools, prompts, resources, templates] = await Promise.all([
    caps.tools
      ? allPages((cursor) => client.listTools({ cursor }, opts).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })))
      : none,
    caps.prompts
      ? allPages((cursor) => client.listPrompts({ cursor }, opts).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })))
      : none,
    caps.resources
      ? allPages((cursor) => client.listResources({ cursor }, opts).then((r) => ({ items: r.resources, nextCursor: r.nextCursor })))
      : none,
    caps.resources
      ? allPages((cursor) =>
          client.listResourceTemplates({ cursor }, opts).then((r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor })),
        )
      : none,
  ]);
  if (!tools) throw new Error("The server did not answer tools/list");
  return {
    tools: tools.items,
    prompts: prompts?.items ?? [],
    resources: resources?.items ?? [],
    resourceTemplates: templates?.items ?? [],
    complete: { tools: tools.complete, prompts: prompts?.complete ?? false, resourceTemplates: templates?.complete ?? false },
  };
}

/** The gateway's view of a child: its JSON-RPC lines and when it ends. */
export function channelOf(child: ServerLink): McpChannel {
  return {
    send: (msg) => child.send(msg),
    onMessage: (cb) => child.onMessage(cb),
    exited: child.exited.then((e) => e.reason ?? (e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`)),
  };
}
