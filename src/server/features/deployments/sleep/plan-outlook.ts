import { planLimits, type Plan } from "~/shared/billing.js";
import { DEPLOY_TEXT, SLEEP_TEXT } from "~/shared/deployments.js";
import { planOf } from "../../billing/plan.js";
import type { Viewer } from "../../auth/viewer.js";
import { planUse } from "../repo.js";
import { sleepPreview } from "./sleep-repo.js";
import type { DeploymentDeps } from "../service.js";

// What the owner's plan means for the next deploy or wake, in words (docs/product.md#sleeping):
// the refusal a deploy, restart or wake gets, and what the panel says before one.

/** A plan's refusal in words: what is kept, what is awake and in use, and what the owner can do. */
export function planRefusal(plan: Plan, limits: { sleep?: unknown }, reason: "running_limit" | "kept_limit" | "connection_limit"): string {
  if (reason === "kept_limit") return SLEEP_TEXT.keptLimit(plan.name, plan.maxKept);
  return limits.sleep ? SLEEP_TEXT.noRoom(plan.name, plan.maxRunning) : DEPLOY_TEXT.runningLimit(plan.name, plan.maxRunning);
}

/**
 * What deploying a new server (`sleepingId` absent) or waking the viewer's sleeping deployment
 * `sleepingId` would do now: null when it just happens, else the sentence the panel shows before
 * (which deployment it puts to sleep, or why it would be refused). A look only: the deploy or the
 * wake decides again, atomically.
 */
export async function planOutlook(deps: Pick<DeploymentDeps, "db" | "config">, v: Viewer, sleepingId?: string): Promise<string | null> {
  const plan = await planOf(deps.db, v.id);
  const limits = planLimits(plan, deps.config.DEPLOY_IDLE_MS);
  if (!sleepingId && (await planUse(deps.db, v.id)).kept >= limits.maxKept)
    return planRefusal(plan, limits, limits.sleep ? "kept_limit" : "running_limit");
  const room = await sleepPreview(deps.db, v.id, limits.maxRunning, sleepingId ?? "", limits.sleep);
  if (!room.ok) return planRefusal(plan, limits, "running_limit");
  if (room.sleeps.length === 0) return null;
  return sleepingId
    ? SLEEP_TEXT.wakeSleeps(plan.name, plan.maxRunning, room.sleeps)
    : SLEEP_TEXT.deploySleeps(plan.name, plan.maxRunning, room.sleeps);
}
