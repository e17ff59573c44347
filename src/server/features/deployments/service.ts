import { randomBytes, randomUUID } from "node:crypto";
import type { z } from "zod";
import { DEPLOY_TEXT, type DeploymentView, deployInput, hostingOpen, missingKeys } from "../../../shared/deployments.js";
import { publish, TOPICS } from "../../cluster/topics.js";
import type { Bus } from "../../cluster/bus.js";
import { planOf } from "../billing/plan.js";
import type { RequiredKey } from "../../../shared/catalog.js";
import { requiredKeysFromConnections, type Connection } from "../../../shared/publishers.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { findServer } from "../catalog/repo.js";
import { keyReaches } from "../publishers/api-keys.js";
import { findOwnedServer } from "../publishers/repo.js";
import { API_KEY_TEXT } from "../../../shared/publishers.js";
import { sourceFrom } from "../runtime/command.js";
import { deployabilityOf } from "./deployability.js";
import { decide, reviewView, setWarnOnly } from "./definitions-repo.js";
import { DEFINITION_TEXT, type definitionDecisionInput, type DefinitionReviewView } from "../../../shared/definitions.js";
import { describeSource, type Source } from "../runtime/runner.js";
import { resourceUrl } from "../oauth/index.js";
import type { CatalogChecks } from "./checks.js";
import type { DeploymentLifecycle } from "./lifecycle.js";
import type { SecretBox } from "./secret-box.js";
import { deploymentListing, publicListing } from "./listings.js";
import {
  findDeployment,
  hostingSummary,
  listUserDeployments,
  planUse,
  reserveDeployment,
  restartInPlace,
  updateHiddenTools,
  type DeploymentRow,
  type ServerRef,
} from "./repo.js";

export interface DeploymentDeps {
  db: Db;
  config: Config;
  box: SecretBox;
  lifecycle: DeploymentLifecycle;
  /** where a changed tool selection is announced to every process's gateway */
  bus?: Pick<Bus, "publish">;
  /** the platform's checks of catalogue entries (admins' 'Check now') */
  checks?: Pick<CatalogChecks, "start">;
}

type DeployInput = z.output<typeof deployInput>;

export function hostPort(config: Config): number {
  const u = new URL(config.PUBLIC_URL);
  return Number(u.port) || (u.protocol === "https:" ? 443 : 80);
}

export function deploymentView(config: Config, r: DeploymentRow, viewer?: Viewer): DeploymentView {
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
  };
}

interface Target {
  server: ServerRef;
  requiredKeys: RequiredKey[];
  source: Source | null;
}

/**
 * What a deploy of `id` runs. A catalogue entry always runs what the catalogue says (anyone
 * signed in may deploy it with their own keys); an owned server is deployable by its owner only,
 * who may name the npx command or repository in the request.
 */
async function resolveTarget(deps: DeploymentDeps, viewer: Viewer, id: string, input: DeployInput): Promise<Target> {
  const entry = await findServer(deps.db, id);
  if (entry && entry.isApproved) {
    const opts = { allowFileGit: deps.config.GIT_ALLOW_FILE === "on" };
    // What cannot run here (a container image, a publisher-hosted server) says why, as its page does.
    const can = deployabilityOf(entry, opts);
    if (can.kind !== "deployable") throw new AppError("validation_failed", can.kind === "remote" ? DEPLOY_TEXT.remoteOnly : can.reason);
    return {
      server: { kind: "catalog", ref: entry.id },
      requiredKeys: entry.requiredKeys ?? [],
      source: sourceFrom(entry.npxCommand, entry.repositoryUrl, opts),
    };
  }
  const owned = id.includes("/") ? await findOwnedServer(deps.db, id) : undefined;
  if (!owned) throw new AppError("not_found", DEPLOY_TEXT.serverNotFound);
  if (owned.ownerId !== viewer.id) throw new AppError("forbidden", DEPLOY_TEXT.notOwner);
  return {
    server: { kind: "owned", ref: owned.qualifiedName },
    requiredKeys: requiredKeysFromConnections(owned.connections as Connection[]),
    source: sourceFrom(input.npx_command, input.repositoryUrl ?? owned.repositoryUrl, {
      allowFileGit: deps.config.GIT_ALLOW_FILE === "on",
    }),
  };
}

export async function deploy(deps: DeploymentDeps, v: Viewer, id: string, input: DeployInput): Promise<DeploymentView> {
  if (!(await deps.lifecycle.sandboxAllows((complete) => hostingOpen(complete, deps.config.SANDBOX_INCOMPLETE, v.isAdmin))))
    throw new AppError("unavailable", DEPLOY_TEXT.hostingClosed);
  const target = await resolveTarget(deps, v, id, input);
  if (!keyReaches(v, target.server)) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
  if (!target.source) throw new AppError("validation_failed", DEPLOY_TEXT.needsSource);
  const env = Object.fromEntries(Object.entries(input.env).filter(([, val]) => val !== ""));
  const missing = missingKeys(target.requiredKeys, env);
  if (missing.length) throw new AppError("validation_failed", DEPLOY_TEXT.missingKeys(missing));
  const plan = await planOf(deps.db, v.id);
  const proxyId = randomBytes(16).toString("hex");
  const result = await reserveDeployment(
    deps.db,
    plan,
    {
      id: randomUUID(),
      userId: v.id,
      serverKind: target.server.kind,
      serverRef: target.server.ref,
      source: target.source,
      secrets: deps.box.seal(env),
      proxyId,
    },
    resourceUrl(deps.config.PUBLIC_URL, proxyId),
  );
  if (!result.ok) {
    if (result.reason === "already_deployed") throw new AppError("conflict", DEPLOY_TEXT.alreadyDeployed);
    throw new AppError(
      "plan_limit",
      result.reason === "running_limit"
        ? DEPLOY_TEXT.runningLimit(plan.name, plan.maxRunning)
        : DEPLOY_TEXT.monthlyLimit(plan.name, plan.maxDeploysPerMonth),
    );
  }
  // A failed deployment this one replaced leaves nothing behind (its directory, a checkout).
  if (result.replaced) await deps.lifecycle.stop(result.replaced, { keepRow: true });
  await deps.lifecycle.launch(result.row);
  // The answer describes the deploy as accepted (queued); admins also see where it was placed.
  const placed = v.isAdmin ? await findDeployment(deps.db, result.row.id) : undefined;
  return deploymentView(deps.config, { ...result.row, runnerId: placed?.runnerId ?? null }, v);
}

export async function listMyDeployments(deps: DeploymentDeps, v: Viewer, serverId?: string): Promise<DeploymentView[]> {
  const rows = await listUserDeployments(deps.db, v.id);
  // Server ids match ignoring case and hyphens (docs/product.md#statuses).
  const norm = (s: string) => s.toLowerCase().replace(/-/g, "");
  return rows
    .filter(
      (r) =>
        (serverId === undefined || norm(r.serverRef) === norm(serverId)) &&
        keyReaches(v, { kind: r.serverKind as ServerRef["kind"], ref: r.serverRef }),
    )
    .map((r) => deploymentView(deps.config, r, v));
}

/** Another user's deployment is reported as not found: its existence is not revealed. */
async function ownDeployment(deps: DeploymentDeps, v: Viewer, id: string): Promise<DeploymentRow> {
  const r = /^[0-9a-f-]{36}$/.test(id) ? await findDeployment(deps.db, id) : undefined;
  // A key limited to other servers sees it no more than another user's.
  if (!r || r.userId !== v.id || !keyReaches(v, { kind: r.serverKind as ServerRef["kind"], ref: r.serverRef }))
    throw new AppError("not_found", DEPLOY_TEXT.notFound);
  return r;
}

export async function stopDeployment(deps: DeploymentDeps, viewer: Viewer, id: string): Promise<void> {
  const r = await ownDeployment(deps, viewer, id);
  await deps.lifecycle.stop(r.id);
}

/** The keys a deployment's server asks for, as its catalogue entry or owned server says now. */
async function requiredKeysOf(db: Db, r: Pick<DeploymentRow, "serverKind" | "serverRef">): Promise<RequiredKey[]> {
  if (r.serverKind === "catalog") return (await findServer(db, r.serverRef))?.requiredKeys ?? [];
  const owned = await findOwnedServer(db, r.serverRef);
  return owned ? requiredKeysFromConnections(owned.connections as Connection[]) : [];
}

/** What the viewer's plan allows and what they use of it: deploys this month and deployments running (My deployments). */
export async function planUsage(db: Db, viewer: Viewer) {
  const [plan, use] = await Promise.all([planOf(db, viewer.id), planUse(db, viewer.id)]);
  return {
    plan: plan.name,
    deploys: use.deploys,
    maxDeploys: Number.isFinite(plan.maxDeploysPerMonth) ? plan.maxDeploysPerMonth : null,
    running: use.live,
    maxRunning: plan.maxRunning,
  };
}

/** How many keys each of the viewer's deployments asks for, by deployment id (My deployments offers Edit keys where there are some). */
export async function keysAsked(db: Db, viewer: Viewer): Promise<Record<string, number>> {
  const rows = await listUserDeployments(db, viewer.id);
  const counts = await Promise.all(rows.map(async (r) => [r.id, (await requiredKeysOf(db, r)).length] as const));
  return Object.fromEntries(counts);
}

/**
 * Restart in place, with new keys when `env` is given (Edit keys): a key left empty keeps its
 * value; the result must still hold every required key. Same URL, grants, pins, tool selection and
 * request log; not a deploy, so the month's deploys are not counted (a failed or stopped one needs
 * a free running slot, like a deploy).
 */
export async function restartDeployment(
  deps: DeploymentDeps,
  v: Viewer,
  id: string,
  env?: Record<string, string>,
): Promise<DeploymentView> {
  const r = await ownDeployment(deps, v, id);
  if (!(await deps.lifecycle.sandboxAllows((complete) => hostingOpen(complete, deps.config.SANDBOX_INCOMPLETE, v.isAdmin))))
    throw new AppError("unavailable", DEPLOY_TEXT.hostingClosed);
  let sealed: string | undefined;
  if (env) {
    let current: Record<string, string> = {};
    try {
      current = deps.box.open(r.secrets);
    } catch {
      // Keys sealed under another SECRETS_KEY are lost: the new ones must then be complete.
    }
    const merged = { ...current, ...Object.fromEntries(Object.entries(env).filter(([, val]) => val !== "")) };
    const missing = missingKeys(await requiredKeysOf(deps.db, r), merged);
    if (missing.length) throw new AppError("validation_failed", DEPLOY_TEXT.missingKeys(missing));
    sealed = deps.box.seal(merged);
  }
  const plan = await planOf(deps.db, v.id);
  const result = await restartInPlace(deps.db, r.id, plan.maxRunning, sealed);
  if (!result) throw new AppError("not_found", DEPLOY_TEXT.notFound);
  if (!result.ok) throw new AppError("plan_limit", DEPLOY_TEXT.runningLimit(plan.name, plan.maxRunning));
  await deps.lifecycle.restart(result.row, result.runnerId);
  return deploymentView(deps.config, result.row, v);
}

/** The owner's choice of tools to hide: stored, then every process's gateway is told at once. */
export async function setHiddenTools(
  deps: DeploymentDeps,
  viewer: Viewer,
  id: string,
  hidden: string[],
): Promise<{ hidden_tools: string[] }> {
  const r = await ownDeployment(deps, viewer, id);
  await updateHiddenTools(deps.db, r.id, hidden);
  await announce(deps, r);
  return { hidden_tools: hidden };
}

/** The owner's view of the deployment's definitions that differ from the approved ones. */
export async function definitionReview(deps: DeploymentDeps, viewer: Viewer, id: string): Promise<DefinitionReviewView> {
  const r = await ownDeployment(deps, viewer, id);
  return reviewView(deps.db, r);
}

/** The owner approves or rejects changed definitions (all or none); every process's gateway is told at once. */
export async function decideDefinitions(
  deps: DeploymentDeps,
  viewer: Viewer,
  id: string,
  input: z.output<typeof definitionDecisionInput>,
): Promise<DefinitionReviewView> {
  const r = await ownDeployment(deps, viewer, id);
  const outcome = await decide(deps.db, r, input.decision, input.items);
  if (!outcome.ok) throw new AppError(outcome.why === "changedAgain" ? "conflict" : "not_found", DEFINITION_TEXT[outcome.why]);
  await announce(deps, r);
  return reviewView(deps.db, r);
}

/** 'Warn only': changes reach clients at once (and are still listed for review). */
export async function setDefinitionMode(
  deps: DeploymentDeps,
  viewer: Viewer,
  id: string,
  warnOnly: boolean,
): Promise<DefinitionReviewView> {
  const r = await ownDeployment(deps, viewer, id);
  await setWarnOnly(deps.db, r, warnOnly);
  await announce(deps, r);
  return reviewView(deps.db, r);
}

/** What the deployment exposes changed: every process's gateway looks it up again and tells its sessions. */
async function announce(deps: DeploymentDeps, r: DeploymentRow) {
  if (deps.bus) await publish(deps.bus, TOPICS.exposure, { id: r.id, proxyId: r.proxyId });
}

export async function deploymentLogs(deps: DeploymentDeps, viewer: Viewer, id: string) {
  const r = await ownDeployment(deps, viewer, id);
  return { status: r.status, status_detail: r.statusDetail, lines: (await deps.lifecycle.logs(r)) ?? [] };
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

/**
 * What a server page shows about hosting: its public tools (a catalogue entry's approved listing,
 * an owned server's own), deploy count and whether one of people's deployments runs.
 */
export async function serverHosting(db: Db, server: ServerRef) {
  const [h, listing] = await Promise.all([hostingSummary(db, server), publicListing(db, server)]);
  return {
    tools: (listing?.tools ?? []).map(toolInfo),
    toolsListedAt: listing ? listing.listedAt.toISOString() : null,
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
  if (!r || r.userId !== viewer.id) return null;
  const listing = await deploymentListing(db, r.id);
  return listing ? { tools: listing.tools.map(toolInfo), listedAt: listing.listedAt.toISOString() } : null;
}
