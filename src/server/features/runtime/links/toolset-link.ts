// A toolset (docs/product.md#toolsets): one MCP server made of several of a user's deployments and
// connections. The runner holds it as it holds a process: a ServerLink whose messages go to a
// server of the MCP SDK's (over an in-memory transport) that answers from its members. Each member
// is reached through the platform's own gateway at its Switchboard URL, with the toolset's own
// credential (a token that opens only these members, of this owner), so each member's keys,
// pins, tool selection, fair use and request log apply as for any client, wherever it runs.
// A member's tools, prompts and templates carry its prefix (`prefix_name`), its resources'
// URIs are namespaced (`prefix+uri`): a call or a read reaches its own member only. A member that
// is down leaves its lists until it is back; clients are told with list_changed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { TOOLSET_TEXT } from "~/shared/toolsets.js";
import { escapeControl, maskSecrets } from "../process/lines.js";
import { LinkBase } from "./link-base.js";
import type { ExitInfo } from "../sandbox/index.js";
import type { OutputStats, ServerLink, ToolsetSpec } from "../runner.js";
import { Member, type ToolsetOptions } from "./toolset-member.js";

export type { ToolsetMember, ToolsetSpec } from "../runner.js";
export type { ToolsetOptions } from "./toolset-member.js";

/** `prefix_name` -> [prefix, name]; `prefix+uri` -> [prefix, uri]. */
function split(value: string, sep: "_" | "+"): [string, string] | undefined {
  const at = value.indexOf(sep);
  return at > 0 ? [value.slice(0, at), value.slice(at + 1)] : undefined;
}

export class ToolsetLink extends LinkBase implements ServerLink {
  private readonly members: Member[];
  private readonly server: Server;
  private readonly outside: InMemoryTransport;
  private timer?: NodeJS.Timeout;
  private initialized = false;

  private readonly callTimeoutMs: number;

  private constructor(
    private readonly spec: ToolsetSpec,
    o: ToolsetOptions,
  ) {
    super();
    this.callTimeoutMs = o.callTimeoutMs;
    let announced = "";
    this.members = spec.members.map(
      (m) =>
        new Member(m, spec.name, spec.token, o, (why, failed) => {
          if (failed) return;
          this.log(why ? TOOLSET_TEXT.memberLost(m.prefix, why) : TOOLSET_TEXT.memberUp(m.prefix));
          // Told once per change of what is listed, not per check.
          const now = this.members.map((x) => `${x.m.prefix}:${x.up}:${x.tools.length}:${x.prompts.length}:${x.resources.length}`).join();
          if (now !== announced) {
            announced = now;
            this.announce();
          }
        }),
    );
    this.server = new Server(
      { name: spec.name, version: "1.0.0" },
      { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } } },
    );
    this.handle();
    const [outside, inside] = InMemoryTransport.createLinkedPair();
    this.outside = outside;
    outside.onmessage = (m) => this.dispatch(m);
    void this.server.connect(inside);
    this.server.oninitialized = () => (this.initialized = true);
    this.timer = setInterval(() => void this.checkAll(), o.checkMs);
    this.timer.unref();
  }

  /** The toolset's server, with its members connected (those that answer: the others are tried again at each check). */
  static async open(spec: ToolsetSpec, o: ToolsetOptions): Promise<ToolsetLink> {
    const link = new ToolsetLink(spec, o);
    await Promise.all(
      link.members.map((m) => m.connect().catch((e: unknown) => link.log(TOOLSET_TEXT.memberLost(m.m.prefix, (e as Error).message)))),
    );
    return link;
  }

  private async checkAll() {
    await Promise.all(this.members.map((m) => m.check()));
  }

  private announce() {
    if (!this.initialized || this.done) return;
    void this.server.sendToolListChanged().catch(() => undefined);
    void this.server.sendPromptListChanged().catch(() => undefined);
    void this.server.sendResourceListChanged().catch(() => undefined);
  }

  private member(prefix: string): Member | undefined {
    return this.members.find((m) => m.m.prefix === prefix);
  }

  /** A member's answer, or the reason it has none; a member that failed for want of its server is taken down. */
  private async ask<T>(m: Member, fn: (c: Client) => Promise<T>): Promise<T> {
    const client = m.client;
    if (!client) throw new McpError(ErrorCode.InternalError, TOOLSET_TEXT.memberDown(m.m.prefix));
    try {
      return await fn(client);
    } catch (e) {
      if (!(e instanceof McpError)) m.lost((e as Error).message);
      throw e;
    }
  }

  private handle() {
    const up = () => this.members.filter((m) => m.up);
    this.server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: up().flatMap((m) => m.tools.filter((t) => m.exposes(t.name)).map((t) => ({ ...t, name: `${m.m.prefix}_${t.name}` }))),
    }));
    this.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const [prefix, name] = split(req.params.name, "_") ?? ["", ""];
      const m = this.member(prefix);
      // Only what the member listed and the toolset exposes: nothing else reaches it.
      if (!m || !m.exposes(name) || (m.up && !m.tools.some((t) => t.name === name)))
        throw new McpError(ErrorCode.InvalidParams, TOOLSET_TEXT.unknownTool(req.params.name));
      // The caller's progress token and cancellation go with the call: the member's progress comes
      // back under the caller's token, and a cancelled call is cancelled at the member.
      const token = req.params._meta?.progressToken;
      const { _meta: _ignored, ...params } = req.params;
      return this.ask(m, (c) =>
        c.callTool({ ...params, name }, undefined, {
          timeout: this.callTimeoutMs,
          signal: extra.signal,
          ...(token !== undefined
            ? {
                resetTimeoutOnProgress: true,
                onprogress: (p) =>
                  void extra
                    .sendNotification({ method: "notifications/progress", params: { ...p, progressToken: token } })
                    .catch(() => undefined),
              }
            : {}),
        }),
      );
    });
    this.server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: up().flatMap((m) => m.prompts.map((p) => ({ ...p, name: `${m.m.prefix}_${p.name}` }))),
    }));
    this.server.setRequestHandler(GetPromptRequestSchema, async (req) => {
      const [prefix, name] = split(req.params.name, "_") ?? ["", ""];
      const m = this.member(prefix);
      if (!m || (m.up && !m.prompts.some((p) => p.name === name)))
        throw new McpError(ErrorCode.InvalidParams, TOOLSET_TEXT.unknownPrompt(req.params.name));
      return this.ask(m, (c) => c.getPrompt({ ...req.params, name }));
    });
    this.server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: up().flatMap((m) => m.resources.map((r) => ({ ...r, uri: `${m.m.prefix}+${r.uri}` }))),
    }));
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: up().flatMap((m) => m.templates.map((t) => ({ ...t, uriTemplate: `${m.m.prefix}+${t.uriTemplate}` }))),
    }));
    this.server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      const [prefix, uri] = split(req.params.uri, "+") ?? ["", ""];
      const m = this.member(prefix);
      if (!m || !uri) throw new McpError(ErrorCode.InvalidParams, TOOLSET_TEXT.unknownResource(req.params.uri));
      const r = await this.ask(m, (c) => c.readResource({ ...req.params, uri }));
      // The contents name the URI the client asked by, never another member's.
      return { ...r, contents: r.contents.map((x) => ({ ...x, uri: `${prefix}+${x.uri}` })) };
    });
  }

  protected clean(line: string): string {
    return escapeControl(maskSecrets(line.slice(0, 2000), [this.spec.token])).slice(0, 500);
  }

  send(m: JSONRPCMessage): void {
    if (this.done) throw new Error("the toolset has stopped");
    void this.outside.send(m).catch((e: unknown) => this.log(`[switchboard] ${(e as Error).message}`));
  }

  outputStats(): OutputStats {
    return { lines: this.lines, bytes: 0, throttledMs: 0, cpuSeconds: 0, inputHeldBytes: 0 };
  }

  async stop(): Promise<ExitInfo> {
    if (!this.done) {
      this.done = true;
      clearInterval(this.timer);
      await Promise.all(this.members.map((m) => m.close()));
      await this.server.close().catch(() => undefined);
      this.ended({ code: null, signal: null, reason: "stopped" });
    }
    return this.exited;
  }
}
