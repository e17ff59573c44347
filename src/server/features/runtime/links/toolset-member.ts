// One member of a toolset (toolset-link.ts): a client session to the member's own Switchboard URL
// with the toolset's credential, what it lists, and whether it is up (a ping per check, a connect
// again when it is down).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolsetMember } from "../runner.js";

const LIST_PAGES = 20;

export interface ToolsetOptions {
  /** how often a member is checked (ping when up, connect when down) */
  checkMs: number;
  /** the longest a member may take to answer a listing, a ping or a connect */
  requestTimeoutMs: number;
  /** the longest a member may take to answer a call (the gateway's own limit, GATEWAY_REQUEST_TIMEOUT_MS) */
  callTimeoutMs: number;
}

/** Every page of a list (bounded): members are servers of the platform's own gateway, still a limit. */
async function all<T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < LIST_PAGES; i++) {
    const r = await page(cursor);
    out.push(...r.items);
    if (!r.nextCursor) break;
    cursor = r.nextCursor;
  }
  return out;
}

export class Member {
  client?: Client;
  tools: Tool[] = [];
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  templates: ResourceTemplate[] = [];
  private connecting?: Promise<void>;

  constructor(
    readonly m: ToolsetMember,
    private readonly toolset: string,
    private readonly token: string,
    private readonly o: ToolsetOptions,
    /** what it lists changed (`why`: it went down); `failed`: it is still down after a try (nothing changed) */
    private readonly changed: (why?: string, failed?: string) => void,
  ) {}

  get up(): boolean {
    return this.client !== undefined;
  }

  exposes(tool: string): boolean {
    return this.m.tools === null || this.m.tools.includes(tool);
  }

  /** Connects (once at a time) and lists; a failure leaves it down, to be tried at the next check. */
  connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    // The member's request log names the toolset its calls came through.
    const client = new Client({ name: `toolset ${this.toolset}`, version: "1.0.0" }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(this.m.url), {
      requestInit: { headers: { Authorization: `Bearer ${this.token}` } },
    });
    try {
      await client.connect(transport, { timeout: this.o.requestTimeoutMs });
      await this.list(client);
    } catch (e) {
      await client.close().catch(() => undefined);
      throw e;
    }
    for (const schema of [ToolListChangedNotificationSchema, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema])
      client.setNotificationHandler(schema, () => void this.relist(client));
    client.onclose = () => {
      if (this.client === client) this.lost("its session ended");
    };
    this.client = client;
    this.changed();
  }

  private async list(client: Client): Promise<void> {
    const caps = client.getServerCapabilities() ?? {};
    const opts = { timeout: this.o.requestTimeoutMs };
    this.tools = caps.tools
      ? await all(async (cursor) => {
          const r = await client.listTools(cursor ? { cursor } : {}, opts);
          return { items: r.tools, nextCursor: r.nextCursor };
        })
      : [];
    this.prompts = caps.prompts
      ? await all(async (cursor) => {
          const r = await client.listPrompts(cursor ? { cursor } : {}, opts);
          return { items: r.prompts, nextCursor: r.nextCursor };
        })
      : [];
    this.resources = caps.resources
      ? await all(async (cursor) => {
          const r = await client.listResources(cursor ? { cursor } : {}, opts);
          return { items: r.resources, nextCursor: r.nextCursor };
        })
      : [];
    this.templates = caps.resources
      ? await all(async (cursor) => {
          const r = await client.listResourceTemplates(cursor ? { cursor } : {}, opts);
          return { items: r.resourceTemplates, nextCursor: r.nextCursor };
        })
      : [];
  }

  private async relist(client: Client): Promise<void> {
    try {
      await this.list(client);
      this.changed();
    } catch (e) {
      this.lost((e as Error).message);
    }
  }

  /** Still there? A failed ping (or a request that failed for want of its server) takes it down. */
  async check(): Promise<void> {
    if (!this.client) return this.connect().catch((e: unknown) => void this.changed(undefined, (e as Error).message));
    await this.client.ping({ timeout: this.o.requestTimeoutMs }).catch((e: unknown) => this.lost((e as Error).message));
  }

  lost(why: string): void {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    this.tools = [];
    this.prompts = [];
    this.resources = [];
    this.templates = [];
    void client.close().catch(() => undefined);
    this.changed(why);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }
}
