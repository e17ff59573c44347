import { z } from "zod";
import { deploymentView } from "./deployments.js";

// Toolsets (docs/product.md#toolsets): several of a user's deployments and connections behind one
// Switchboard URL. Each member's tools, prompts and resource templates appear with its prefix
// (`prefix_name`), its resources' URIs namespaced (`prefix+uri`), so a call or a read reaches its
// member only.

export const TOOLSET_TEXT = {
  title: "Toolsets",
  intro:
    "Several of your deployments and connections behind one URL: each one's tools appear with its prefix, a call reaches only its own server, and a server that is down simply leaves its tools out until it is back.",
  create: "Create toolset",
  creating: "Creating...",
  created: "Toolset created",
  save: "Save members",
  saved: "Members saved: the toolset is restarting with them.",
  remove: "Remove",
  removed: "Toolset removed",
  removeTitle: (name: string) => `Remove the toolset "${name}"?`,
  removeText:
    "Clients using its URL get no answers, and so does its custom domain if it has one. Its members are not changed: each keeps running at its own URL.",
  removeMembersTitle: (n: number) => `Remove ${n === 1 ? "a member" : `${n} members`} from this toolset?`,
  removeMembersText: (names: string[]) =>
    `Clients using the toolset's URL no longer see the tools of ${names.join(", ")}, and calls to them fail. ${names.length === 1 ? "That server keeps" : "Those servers keep"} running at ${names.length === 1 ? "its" : "their"} own URL.`,
  removeMembersConfirm: "Remove and save",
  cancel: "Cancel",
  none: "No toolsets yet. Tick the deployments and connections to combine above.",
  noMembers: "You have no deployments or connections to combine yet: deploy or connect a server first.",
  nameLabel: "Name",
  nameHint: "Lower-case letters, digits and hyphens: how you will find it here.",
  membersLabel: "Members",
  membersHint: "Tick the servers to combine. The prefix is what their tools are called by: prefix_tool.",
  prefixLabel: (name: string) => `Prefix for ${name}`,
  loadFailed: "Failed to load your toolsets. Please try again later.",
  notFound: "Toolset not found",
  gone: "This toolset was removed.",
  panelTitle: "Toolset",
  membersTitle: "Members",
  memberGone: "removed: no longer in this toolset's reach",
  noTools: "Its tools are listed here once it is running.",
  badName: "Names use lower-case letters, digits and hyphens, 1 to 40 characters, starting with a letter or digit",
  badPrefix:
    "A prefix is 1 to 20 lower-case letters, digits and hyphens, starting with a letter (no underscore: it separates the prefix from the name)",
  noMember: "Pick at least one deployment or connection",
  tooManyMembers: (n: number) => `A toolset can combine at most ${n} servers`,
  duplicateMember: "Each server can be a member once",
  prefixTaken: (prefix: string) => `Two members cannot share the prefix "${prefix}": give one another prefix`,
  memberNotFound: "One of the members is not a deployment or connection of yours",
  memberIsToolset: "A toolset cannot contain another toolset",
  nameTaken: "You already have a toolset with this name.",
  renamed: "A toolset keeps its name: create a new one to use another.",
  tooMany: (n: number) => `You can have at most ${n} toolsets.`,
  // What the toolset's own server answers (features/runtime/links/toolset-link.ts).
  unknownTool: (name: string) => `Unknown tool: ${name}`,
  unknownPrompt: (name: string) => `Unknown prompt: ${name}`,
  unknownResource: (uri: string) => `Unknown resource: ${uri}`,
  memberDown: (prefix: string) => `The server behind "${prefix}" is not available right now: try again once it is back`,
  memberUp: (prefix: string) => `[switchboard] ${prefix}: connected`,
  memberLost: (prefix: string, why: string) => `[switchboard] ${prefix}: not available (${why})`,
} as const;

export const MAX_MEMBERS = 20;
export const PREFIX = /^[a-z][a-z0-9-]{0,19}$/;

/** The prefix a member gets unless its owner picks one: its short name, lower-cased, within the rules. */
export function defaultPrefix(name: string): string {
  const short = name.split("/").pop()!.toLowerCase();
  const cleaned = short
    .replace(/^(mcp-server-|server-|mcp-)/, "")
    .replace(/(-mcp-server|-mcp|-server)$/, "")
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, 20)
    .replace(/-+$/, "");
  return cleaned || "server";
}

export const toolsetMemberInput = z
  .object({
    deployment_id: z.string().uuid().optional(),
    connection_id: z.string().uuid().optional(),
    prefix: z.string().trim().regex(PREFIX, TOOLSET_TEXT.badPrefix).optional(),
    /** the member's tools the toolset exposes (by the member's own names); absent: all of them */
    tools: z.array(z.string().min(1).max(200)).max(500).optional(),
  })
  .check((ctx) => {
    if (Boolean(ctx.value.deployment_id) === Boolean(ctx.value.connection_id))
      ctx.issues.push({ code: "custom", message: TOOLSET_TEXT.noMember, input: ctx.value });
  });

/** POST /api/toolsets, PUT /api/toolsets/{id}: a name and its members. */
export const toolsetInput = z.object({
  /** an organisation's slug: it owns the toolset, whose members are its deployments (absent or empty: the viewer does) */
  owner: z.string().trim().max(39).nullish(),
  name: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, TOOLSET_TEXT.badName),
  members: z.array(toolsetMemberInput).min(1, TOOLSET_TEXT.noMember).max(MAX_MEMBERS, TOOLSET_TEXT.tooManyMembers(MAX_MEMBERS)),
});
export type ToolsetInput = z.infer<typeof toolsetInput>;

export const toolsetMemberView = z.object({
  /** the member's deployment (a connection is one too) */
  deployment_id: z.string(),
  kind: z.enum(["deployment", "connection"]),
  prefix: z.string(),
  /** what its owner calls it: the server's id, or the connection's name */
  name: z.string(),
  tools: z.array(z.string()).nullable(),
  /** the member's status, or null when it is gone (stopped or removed) */
  status: z.string().nullable(),
});

/** A toolset as its owner sees it: a deployment of its own (URL, keys, OAuth, log) whose server is its members. */
export const toolsetView = deploymentView.extend({
  name: z.string(),
  members: z.array(toolsetMemberView),
});
export type ToolsetView = z.infer<typeof toolsetView>;
