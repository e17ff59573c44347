import { randomBytes, randomUUID } from "node:crypto";
import type { z } from "zod";
import { DEPLOY_TEXT, type DeploymentView, deployInput, hostingOpen, missingKeys } from "~/shared/deployments.js";
import { planLimits } from "~/shared/billing.js";
import { planRefusal } from "./sleep/plan-outlook.js";
import { planOf } from "../billing/plan.js";
import type { RequiredKey } from "~/shared/catalog.js";
import { requiredKeysFromConnections, type Connection } from "~/shared/publishers.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { findServer } from "../catalog/repo.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { findOwnedServer } from "../publishers/repo.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { sourceFrom } from "../runtime/command.js";
import type { Source } from "../runtime/runner.js";
import { deployabilityOf } from "./deployability.js";
import { findDeployment, reserveDeployment, type ServerRef } from "./repo.js";
import { deploymentView, type DeploymentDeps } from "./service.js";
import { deployingOwner, orgOfAccount, reaches } from "../orgs/accounts.js";
import { ORG_TEXT } from "~/shared/orgs.js";

// Deploy: what a deploy of a server runs (a catalogue entry's command, an owned server's source),
// the checks before it (sandbox, key scope, required keys, plan limits), and its reservation and
// launch.

type DeployInput = z.output<typeof deployInput>;

interface Target {
  server: ServerRef;
  requiredKeys: RequiredKey[];
  source: Source | null;
}

/**
 * What a deploy of `id` runs. A catalogue entry always runs what the catalogue says (anyone
 * signed in may deploy it with their own keys); an owned server is deployed as its owner only
 * (an organisation's as the organisation), who may name the npx command or repository in the request.
 */
async function resolveTarget(deps: DeploymentDeps, viewer: Viewer, ownerId: string, id: string, input: DeployInput): Promise<Target> {
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
  // A person's by themselves (as themselves, or as an organisation they may deploy for); an
  // organisation's as the organisation only (by those who may deploy for it, which deployingOwner
  // checked), so its figures and its audit rows are the organisation's.
  if (owned.ownerId !== ownerId && owned.ownerId !== viewer.id) {
    const asOrg = owned.ownerOrg && (await reaches(deps.db, viewer.id, owned.ownerId, "manage"));
    throw new AppError("forbidden", asOrg && owned.ownerOrg ? ORG_TEXT.deployAsOwner(owned.ownerOrg.name) : DEPLOY_TEXT.notOwner);
  }
  return {
    server: { kind: "owned", ref: owned.qualifiedName },
    requiredKeys: requiredKeysFromConnections(owned.connections as Connection[]),
    source: sourceFrom(input.npx_command, input.repositoryUrl ?? owned.repositoryUrl, {
      allowFileGit: deps.config.GIT_ALLOW_FILE === "on",
    }),
  };
}

export async function deploy(
  deps: DeploymentDeps,
  v: Viewer,
  id: string,
  input: DeployInput,
): Promise<{ view: DeploymentView; orgId?: string }> {
  if (!(await deps.lifecycle.sandboxAllows((complete) => hostingOpen(complete, deps.config.SANDBOX_INCOMPLETE, v.isAdmin))))
    throw new AppError("unavailable", DEPLOY_TEXT.hostingClosed);
  // Deployed as an organisation (its admins and owners may): the organisation's account holds it,
  // its plan counts it, and its members reach it with their own keys. Checked first: someone
  // outside it learns nothing else.
  const owner = await deployingOwner(deps.db, v, input.owner);
  const target = await resolveTarget(deps, v, owner.id, id, input);
  if (!keyReaches(v, target.server)) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
  if (!target.source) throw new AppError("validation_failed", DEPLOY_TEXT.needsSource);
  const env = Object.fromEntries(Object.entries(input.env).filter(([, val]) => val !== ""));
  const missing = missingKeys(target.requiredKeys, env);
  if (missing.length) throw new AppError("validation_failed", DEPLOY_TEXT.missingKeys(missing));
  const plan = await planOf(deps.db, owner.id);
  const limits = planLimits(plan, deps.config.DEPLOY_IDLE_MS);
  const result = await reserveDeployment(
    deps.db,
    limits,
    {
      id: randomUUID(),
      userId: owner.id,
      serverKind: target.server.kind,
      serverRef: target.server.ref,
      source: target.source,
      secrets: deps.box.seal(env),
      // used only at this server's first deploy: after that it keeps the address it had
      proxyId: randomBytes(16).toString("hex"),
    },
    deps.resources,
  );
  if (!result.ok) {
    if (result.reason === "already_deployed") throw new AppError("conflict", DEPLOY_TEXT.alreadyDeployed);
    throw new AppError("plan_limit", planRefusal(plan, limits, result.reason));
  }
  await deps.lifecycle.sleepOthers(result.slept);
  // A failed deployment this one replaced leaves nothing behind (its directory, a checkout).
  if (result.replaced) await deps.lifecycle.stop(result.replaced, { keepRow: true });
  await deps.lifecycle.launch(result.row);
  // The answer describes the deploy as accepted (queued); admins also see where it was placed.
  const placed = v.isAdmin ? await findDeployment(deps.db, result.row.id) : undefined;
  const view = deploymentView(deps.config, { ...result.row, runnerId: placed?.runnerId ?? null }, v, owner.org);
  return { view, orgId: orgOfAccount(owner.id) };
}
