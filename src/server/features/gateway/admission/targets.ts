import type { LRUCache } from "lru-cache";
import type { Db } from "~/server/db/client.js";
import type { Runner } from "../../runtime/runner.js";
import { findDeploymentByProxy, type GatewayTarget, type PinsPort } from "../repo.js";
import { ttlCache } from "./ttl-cache.js";

// Proxy id -> deployment, remembered briefly so most requests skip the database: a front
// gateway's or all-in-one's (access.ts) and a runner's gateway's (cluster.ts ForwardedAccess).

const TARGET_TTL_MS = 5000;
/** proxy ids remembered at once: beyond, the least recently used is looked up again */
const TARGET_CACHE_MAX = 10_000;

export class TargetCache {
  private readonly targets: LRUCache<string, GatewayTarget> = ttlCache(TARGET_CACHE_MAX, TARGET_TTL_MS);
  /** bumped by every forget: a lookup that started before one is not cached (it may predate the change) */
  private forgotten = 0;

  constructor(
    private readonly d: {
      db: Db;
      pins: Pick<PinsPort, "review">;
      /** the runner of this process, when sessions are served here: a target it no longer runs is looked up again */
      runner?: Pick<Runner, "runs">;
    },
  ) {}

  /** Forget a cached target (its runner could not be reached, it said it does not hold it, its settings changed), or all of them. */
  forget(proxyId?: string): void {
    this.forgotten++;
    if (proxyId === undefined) this.targets.clear();
    else this.targets.delete(proxyId);
  }

  /** proxy id -> deployment, cached briefly; a deployment this process no longer runs is looked up again. */
  async lookup(proxyId: string): Promise<GatewayTarget | undefined> {
    return this.cached(proxyId) ?? this.fetch(proxyId);
  }

  /** The remembered deployment, while fresh and (with a runner) still run here. */
  cached(proxyId: string): GatewayTarget | undefined {
    const hit = this.targets.get(proxyId);
    return hit && (this.d.runner?.runs(hit.id) ?? true) ? hit : undefined;
  }

  /** The deployment from the database, remembered unless a forget came while it was looked up. */
  async fetch(proxyId: string): Promise<GatewayTarget | undefined> {
    const generation = this.forgotten;
    const target = await findDeploymentByProxy(this.d.db, this.d.pins, proxyId);
    if (target && generation === this.forgotten) this.targets.set(proxyId, target);
    else this.targets.delete(proxyId);
    return target;
  }
}
