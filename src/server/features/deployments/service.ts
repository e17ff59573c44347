import type { DeploymentView } from "~/shared/deployments.js";
import type { Bus } from "../../cluster/bus.js";
import { planOf } from "../billing/plan.js";
import type { RequiredKey } from "~/shared/catalog.js";
import { requiredKeysFromConnections, type Connection } from "~/shared/publishers.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Viewer } from "../auth/viewer.js";
import { findServer } from "../catalog/repo.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { findOwnedServer } from "../publishers/repo.js";
import { describeSource, type Source } from "../runtime/runner.js";
import type { CatalogChecks } from "./checks/checks.js";
import type { DeploymentLifecycle } from "./lifecycle.js";
import type { SecretBox } from "./secret-box.js";
import { catalogFacts, deploymentListing, publicFacts } from "./definitions/listings.js";
import { catalogHostingRow, hostingSummary } from "./hosting-repo.js";
import { findDeployment, listOwnersDeployments, planUse, type DeploymentRow, type ServerRef } from "./repo.js";
import { orgOfAccount, orgsReached, reaches, type OrgReach } from "../orgs/accounts.js";
import type { DeploymentResources } from "./resources.js";

// What the pages and the API read of deployments: a deployment as its owner sees it, the viewer's
// deployments, plan use, the keys each asks for and the tools a server shows. Deploying is
// deploy.ts; what an owner does to a deployment (stop, restart, tools, definitions) owner-actions.ts.

export interface DeploymentDeps {
  db: Db;
  config: Config;
  box: SecretBox;
  lifecycle: DeploymentLifecycle;
  /** the deployments' OAuth resources (features/oauth keeps them): recorded with each deploy */
  resources: DeploymentResources;
  /** where a changed tool selection is announced to every process's gateway */
  bus?: Pick<Bus, "publish">;
  /** the platform's checks of catalogue entries (admins' 'Check now') */
  checks?: Pick<CatalogChecks, "start">;
  /** counts restarts in windows every process shares (the rate_limits table): DEPLOY_RESTARTS_PER_MINUTE */
  restarts?: { hit(key: string, limit: number, windowMs: number): Promise<{ ok: boolean; retryAfterSec: number }> };
}

/** A connection: a deployment whose source is a remote server's URL (connections.ts). */
export const isConnection = (r: Pick<DeploymentRow, "source">) => (r.source as Source).kind === "remote";

/** A toolset: a deployment whose server is several of its owner's deployments (toolsets.ts). */
export const isToolset = (r: Pick<DeploymentRow, "source">) => (r.source as Source).kind === "toolset";

export function hostPort(config: Config): number {
  const u = new URL(config.PUBLIC_URL);
  return Number(u.port) || (u.protocol === "https:" ? 443 : 80);
}

export function deploymentView(
  config: Config,
  r: DeploymentRow,
  viewer?: Viewer,
  /** the organisation that owns it (features/orgs/accounts.ts), null: a person's own */
  org: OrgReach | null = null,
): DeploymentView {
  const src = r.source as Source;
  // Which machine holds it is the operators' business: admins see it, nobody else does.
  const placement = viewer?.isAdmin ? { runner: r.runnerId } : {};
  return {
    ...placement,
    id: r.id,
    server_id: r.serverRef,
    status: r.status,
    status_detail: r.statusDetail,
    exit_code: r.exitCode,
    restarts: r.restarts,
    host_port: hostPort(config),
    proxy_id: r.proxyId,
    url: `${config.PUBLIC_URL}/${r.proxyId}/mcp`,
    sse_url: `${config.PUBLIC_URL}/${r.proxyId}/sse`,
    source: describeSource(src),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    hidden_tools: r.hiddenTools ?? [],
    last_active_at: r.lastActiveAt?.toISOString() ?? null,
    keep_awake: r.keepAwake ?? false,
    org,
  };
}

/**
 * The viewer's own deployments and those of their organisations (whose accounts hold them,
 * features/orgs/accounts.ts), each with the organisation it belongs to.
 */
export async function reachableRows(db: Db, v: Viewer): Promise<{ row: DeploymentRow; org: OrgReach | null }[]> {
  const orgs = await orgsReached(db, v.id);
  const rows = await listOwnersDeployments(db, [v.id, ...orgs.keys()]);
  return rows.map((row) => ({ row, org: orgs.get(row.userId) ?? null }));
}

export async function listMyDeployments(
  deps: DeploymentDeps,
  v: Viewer,
  serverId?: string,
  /** one owner's only: an organisation's slug, or "" for the viewer's own */
  owner?: string,
): Promise<DeploymentView[]> {
  const all = await reachableRows(deps.db, v);
  const rows = owner === undefined ? all : all.filter((r) => (r.org?.slug ?? "") === owner.toLowerCase());
  // Server ids match ignoring case and hyphens (docs/product.md#statuses).
  const norm = (s: string) => s.toLowerCase().replace(/-/g, "");
  return rows
    .filter(
      ({ row: r }) =>
        // A connection by URL is no server's deployment: its name may read like an entry's id.
        (serverId === undefined || (norm(r.serverRef) === norm(serverId) && r.serverKind !== "remote" && r.serverKind !== "toolset")) &&
        keyReaches(v, { kind: r.serverKind as ServerRef["kind"], ref: r.serverRef }),
    )
    .map(({ row, org }) => deploymentView(deps.config, row, v, org));
}

/** The organisation that owns a deployment (its id), or undefined: a person's own, or no such deployment. */
export async function deploymentOrg(db: Db, id: string): Promise<string | undefined> {
  const r = /^[0-9a-f-]{36}$/.test(id) ? await findDeployment(db, id) : undefined;
  return r ? orgOfAccount(r.userId) : undefined;
}

/** The keys a deployment's server asks for, as its catalogue entry or owned server says now. */
export async function requiredKeysOf(db: Db, r: Pick<DeploymentRow, "serverKind" | "serverRef">): Promise<RequiredKey[]> {
  if (r.serverKind === "catalog") return (await findServer(db, r.serverRef))?.requiredKeys ?? [];
  const owned = await findOwnedServer(db, r.serverRef);
  return owned ? requiredKeysFromConnections(owned.connections as Connection[]) : [];
}

/** What the viewer's plan allows and what they use of it: deployments awake and kept (My deployments). */
export async function planUsage(deps: Pick<DeploymentDeps, "db" | "config">, viewer: Viewer) {
  const db = deps.db;
  const [plan, use] = await Promise.all([planOf(db, viewer.id), planUse(db, viewer.id)]);
  return {
    plan: plan.name,
    running: use.live,
    maxRunning: plan.maxRunning,
    kept: use.kept,
    /** null: unlimited, or deployments do not sleep here (every kept one runs) */
    maxKept: deps.config.DEPLOY_IDLE_MS > 0 && Number.isFinite(plan.maxKept) ? plan.maxKept : null,
  };
}

/** How many keys each of the viewer's deployments asks for, by deployment id (My deployments offers Edit keys where there are some). */
export async function keysAsked(db: Db, viewer: Viewer): Promise<Record<string, number>> {
  const rows = await reachableRows(db, viewer);
  const counts = await Promise.all(rows.map(async ({ row: r }) => [r.id, (await requiredKeysOf(db, r)).length] as const));
  return Object.fromEntries(counts);
}

export interface ToolInfo {
  name: string;
  description: string;
  params: { name: string; type: string; required: boolean; description: string }[];
}

function toolInfo(t: unknown): ToolInfo {
  const tool = t as {
    name?: string;
    description?: string;
    inputSchema?: { properties?: Record<string, { type?: string | string[]; description?: string }>; required?: string[] };
  };
  const props = tool.inputSchema?.properties ?? {};
  return {
    name: String(tool.name ?? ""),
    description: String(tool.description ?? ""),
    params: Object.entries(props).map(([name, p]) => ({
      name,
      type: Array.isArray(p?.type) ? p.type.join(" | ") : String(p?.type ?? "any"),
      required: tool.inputSchema?.required?.includes(name) ?? false,
      description: String(p?.description ?? ""),
    })),
  };
}

/** A catalogue entry's page facts read in one query (catalogHostingRow), as serverHosting takes them. */
function catalogHosting(r: Awaited<ReturnType<typeof catalogHostingRow>>) {
  const facts = catalogFacts({
    approved: r.approved,
    at: r.approved_at,
    outcome: r.outcome,
    tools: r.outcome_tools,
    detail: r.outcome_detail,
    checkedAt: r.checked_at,
  });
  return [{ deploys: r.deploys, running: r.running }, facts] as const;
}

/**
 * What a server page shows about hosting: its public tools (a catalogue entry's approved listing,
 * an owned server's own), deploy count and whether one of people's deployments runs.
 */
export async function serverHosting(db: Db, server: ServerRef) {
  const [h, { listing, check }] =
    server.kind === "catalog"
      ? catalogHosting(await catalogHostingRow(db, server.ref))
      : await Promise.all([hostingSummary(db, server), publicFacts(db, server)]);
  return {
    tools: (listing?.tools ?? []).map(toolInfo),
    toolsListedAt: listing ? listing.listedAt.toISOString() : null,
    /** the platform's last check of a catalogue entry ('works here') */
    check,
    totalDeployments: h.deploys,
    deployed: h.running,
  };
}

/** The viewer's own deployment's tools as it listed them at its last start (their view of it), or null. */
export async function myDeploymentTools(
  db: Db,
  viewer: Viewer,
  deploymentId: string,
): Promise<{ tools: ToolInfo[]; listedAt: string } | null> {
  const r = await findDeployment(db, deploymentId);
  if (!r || !(await reaches(db, viewer.id, r.userId, "use"))) return null;
  const listing = await deploymentListing(db, r.id);
  return listing ? { tools: listing.tools.map(toolInfo), listedAt: listing.listedAt.toISOString() } : null;
}
