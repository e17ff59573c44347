import type { z } from "zod";
import { DEPLOY_TEXT, type DeploymentView, hostingOpen, missingKeys, SLEEP_TEXT } from "~/shared/deployments.js";
import { publish, TOPICS } from "../../cluster/topics.js";
import { planOf } from "../billing/plan.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { decide, reviewView, setWarnOnly } from "./definitions/definitions-repo.js";
import { DEFINITION_TEXT, type definitionDecisionInput, type DefinitionReviewView } from "~/shared/definitions.js";
import { findDeployment, restartInPlace, updateHiddenTools, type DeploymentRow, type ServerRef } from "./repo.js";
import { deploymentView, requiredKeysOf, type DeploymentDeps } from "./service.js";
import { isConnection, isToolset } from "./service.js";
import { setKeepAwake } from "./sleep/sleep-repo.js";
import { planRefusal } from "./sleep/plan-outlook.js";
import { headerOfKey } from "~/shared/connections.js";
import { planLimits } from "~/shared/billing.js";
import { ORG_TEXT } from "~/shared/orgs.js";
import { orgViewOf, reaches, type Reach } from "../orgs/accounts.js";

// What an owner does to one of their deployments: stop it, restart it (with new keys: Edit keys),
// choose its tools, review its changed definitions, read its output. Another user's deployment is
// never found.

/**
 * The viewer's deployment by id. Another user's is reported as not found (its existence is not
 * revealed), and so is one a key limited to other servers cannot reach. Other features' routes
 * under /api/deployments/{id} (alerts, domains) check ownership with it too.
 */
export async function ownedDeployment(
  db: Db,
  v: Viewer,
  id: string,
  reach: Reach = "manage",
  /** what 'not found' says (a connection's or a toolset's page has its own words) */
  notFound: string = DEPLOY_TEXT.notFound,
): Promise<DeploymentRow> {
  const r = /^[0-9a-f-]{36}$/.test(id) ? await findDeployment(db, id) : undefined;
  // An organisation's deployment (features/orgs/accounts.ts): its members see it, its admins manage it.
  if (!r || !keyReaches(v, { kind: r.serverKind as ServerRef["kind"], ref: r.serverRef }) || !(await reaches(db, v.id, r.userId, "use")))
    throw new AppError("not_found", notFound);
  if (reach === "manage" && !(await reaches(db, v.id, r.userId, "manage"))) throw new AppError("forbidden", ORG_TEXT.notAllowedDeploy);
  return r;
}

const ownDeployment = (deps: DeploymentDeps, v: Viewer, id: string) => ownedDeployment(deps.db, v, id);

export async function stopDeployment(deps: DeploymentDeps, viewer: Viewer, id: string): Promise<void> {
  const r = await ownDeployment(deps, viewer, id);
  await deps.lifecycle.stop(r.id);
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
  // A connection runs no hosted code: the sandbox's state does not hold it back.
  if (
    !isConnection(r) &&
    !(await deps.lifecycle.sandboxAllows((complete) => hostingOpen(complete, deps.config.SANDBOX_INCOMPLETE, v.isAdmin)))
  )
    throw new AppError("unavailable", DEPLOY_TEXT.hostingClosed);
  let sealed: string | undefined;
  if (env) {
    let current: Record<string, string> = {};
    try {
      current = deps.box.open(r.secrets);
    } catch {
      // Keys sealed under another SECRETS_KEY are lost: the new ones must then be complete.
    }
    // A connection keeps its keys as the headers they are sent as (X_API_KEY as X-API-KEY).
    const named = (name: string) => (isConnection(r) ? headerOfKey(name) : name);
    const given = Object.entries(env).filter(([, val]) => val !== "");
    const merged = { ...current, ...Object.fromEntries(given.map(([k, val]) => [named(k), val])) };
    const required = (await requiredKeysOf(deps.db, r)).map((k) => ({ ...k, env_var: named(k.env_var) }));
    const missing = missingKeys(required, merged);
    if (missing.length) throw new AppError("validation_failed", DEPLOY_TEXT.missingKeys(missing));
    sealed = deps.box.seal(merged);
  }
  const row = await restartRow(deps, v, r, sealed === undefined ? {} : { secrets: sealed });
  return deploymentView(deps.config, row, v, await orgViewOf(deps.db, v.id, r.userId));
}

/**
 * Restarts the owner's row in place, with new sealed keys when given: rate limited
 * (DEPLOY_RESTARTS_PER_MINUTE), a failed or stopped one needing a running slot of the plan.
 */
export async function restartRow(
  deps: DeploymentDeps,
  v: Viewer,
  r: DeploymentRow,
  sealed?: { secrets?: string; upstreamGrant?: string; source?: unknown },
): Promise<DeploymentRow> {
  // Each restart starts a sandbox anew: a loop of them would spend the machine others share. Only
  // a restart that goes ahead counts (refused keys do not).
  const perMinute = deps.config.DEPLOY_RESTARTS_PER_MINUTE;
  if (perMinute > 0 && deps.restarts) {
    const hit = await deps.restarts.hit(`restart:${r.id}`, perMinute, 60_000);
    if (!hit.ok) throw new AppError("rate_limited", DEPLOY_TEXT.tooManyRestarts(hit.retryAfterSec));
  }
  // The owner's plan counts it: an organisation's for its deployments.
  const plan = await planOf(deps.db, r.userId);
  const limits = planLimits(plan, deps.config.DEPLOY_IDLE_MS);
  const result = await restartInPlace(deps.db, r.id, limits, sealed);
  if (!result) throw new AppError("not_found", DEPLOY_TEXT.notFound);
  if (!result.ok) throw new AppError("plan_limit", planRefusal(plan, limits, result.reason));
  await deps.lifecycle.sleepOthers(result.slept);
  await deps.lifecycle.restart(result.row, result.runnerId);
  return result.row;
}

/**
 * The owner's choice to keep a deployment awake while idle (Pro; Free deployments always sleep
 * where the platform sleeps them). Connections and toolsets never sleep.
 */
export async function keepAwake(
  deps: DeploymentDeps,
  v: Viewer,
  id: string,
  keep: boolean,
): Promise<{ keep_awake: boolean; message: string }> {
  const r = await ownDeployment(deps, v, id);
  if (isConnection(r) || isToolset(r)) throw new AppError("validation_failed", SLEEP_TEXT.neverSleeps);
  if (keep && (await planOf(deps.db, r.userId)).id !== "pro") throw new AppError("forbidden", SLEEP_TEXT.keepAwakeProOnly);
  await setKeepAwake(deps.db, r.id, keep);
  const minutes = Math.round(deps.config.DEPLOY_IDLE_MS / 60_000);
  const after = minutes >= 1 ? `${minutes} minute${minutes === 1 ? "" : "s"}` : `${Math.round(deps.config.DEPLOY_IDLE_MS / 1000)} seconds`;
  return {
    keep_awake: keep,
    message: keep ? SLEEP_TEXT.keptAwake : deps.config.DEPLOY_IDLE_MS > 0 ? SLEEP_TEXT.mayNowSleep(after) : SLEEP_TEXT.sleepingOff,
  };
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
