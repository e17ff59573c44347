import { DEPLOY_TEXT, type ServerKind } from "~/shared/deployments.js";
import { CATALOG_TEXT } from "~/shared/catalog.js";
import type { RequestLogPage, RequestLogQuery, ToolStat } from "~/shared/request-log.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { getServer } from "../catalog/service.js";
import { getPublicOwnedServer } from "../publishers/service.js";
import { addBuckets, emptyBuckets, quantile } from "./histogram.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { reaches } from "../orgs/accounts.js";
import { deploymentOwner, findRequests, lastRequestAt, recentMethods, recentToolStats } from "./repo.js";

/** The owner's request log of one deployment; another user's, or an unknown id, is not found (as every deployment route answers). */
export async function listRequests(db: Db, viewer: Viewer, deploymentId: string, q: RequestLogQuery): Promise<RequestLogPage> {
  const owner = /^[0-9a-f-]{36}$/.test(deploymentId) ? await deploymentOwner(db, deploymentId) : undefined;
  // A key limited to other servers sees it no more than another user's.
  // An organisation's: its owners and admins read it (it names the members who called).
  if (owner === undefined || !keyReaches(viewer, owner) || !(await reaches(db, viewer.id, owner.userId, "manage")))
    throw new AppError("not_found", DEPLOY_TEXT.notFound);
  const [rows, methods] = await Promise.all([
    findRequests(db, deploymentId, {
      method: q.method || undefined,
      name: q.name || undefined,
      outcome: q.outcome || undefined,
      playground: q.playground === "1",
      limit: q.limit,
    }),
    recentMethods(db, deploymentId),
  ]);
  return {
    requests: rows.map((r) => ({
      at: r.at.toISOString(),
      client_name: r.clientName,
      client_version: r.clientVersion,
      method: r.method,
      name: r.name,
      duration_ms: r.durationMs,
      outcome: r.outcome,
      error_code: r.errorCode,
      bytes_in: r.bytesIn,
      bytes_out: r.bytesOut,
      playground: r.playground,
      woke_ms: r.wokeMs,
      caller: r.caller,
    })),
    methods,
  };
}

const round1 = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);

/**
 * Per tool over the last 24 hours: calls (all of them), and error rate and p50/p95 latency that
 * weigh each user once: each user's own figures first, then the lower median across users. One
 * user (a wrong key failing every call, a loop of slow calls) moves them only where they are the
 * only one. Counts only; nothing about who called. Usable from page loaders.
 */
export async function toolStats(db: Db, server: { kind: ServerKind; ref: string }): Promise<ToolStat[]> {
  const perUser = new Map<string, Map<string, { calls: number; errors: number; buckets: number[] }>>();
  for (const r of await recentToolStats(db, server.kind, server.ref)) {
    let users = perUser.get(r.tool);
    if (!users) perUser.set(r.tool, (users = new Map()));
    let s = users.get(r.user_id);
    if (!s) users.set(r.user_id, (s = { calls: 0, errors: 0, buckets: emptyBuckets() }));
    s.calls += r.calls;
    s.errors += r.errors;
    addBuckets(s.buckets, r.buckets);
  }
  return [...perUser.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, users]) => {
      const each = [...users.values()].filter((u) => u.calls > 0);
      return {
        name,
        calls: each.reduce((n, u) => n + u.calls, 0),
        error_rate: lowerMedian(each.map((u) => u.errors / u.calls)),
        p50_ms: round1(lowerMedianOf(each.map((u) => quantile(u.buckets, 0.5)))),
        p95_ms: round1(lowerMedianOf(each.map((u) => quantile(u.buckets, 0.95)))),
      };
    });
}

/** The lower median of the values there are (null when there is none). */
function lowerMedianOf(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? lowerMedian(known) : null;
}

/** The middle value, the lower of the two middle ones for an even count (0 for none): half or more must agree to move it up. */
export function lowerMedian(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * A catalogue entry's figures, for everyone who may see the entry: many people deploy it, so they
 * say how its tools behave, not what anyone did. An owned server's, for its owner alone (an
 * organisation's, for its members): only its owner can deploy it, so its figures are the owner's usage.
 */
export async function publicToolStats(db: Db, viewer: Viewer | null, id: { catalog: string } | { owned: string }): Promise<ToolStat[]> {
  if ("catalog" in id) return toolStats(db, { kind: "catalog", ref: (await getServer(db, id.catalog, viewer)).id });
  const owned = await getPublicOwnedServer(db, id.owned);
  if (!owned) throw new AppError("not_found", CATALOG_TEXT.notFound);
  const reached = viewer ? await reaches(db, viewer.id, owned.owner.id, "use") : false;
  return reached ? toolStats(db, { kind: "owned", ref: owned.qualifiedName }) : [];
}

/** When each of the viewer's deployments last answered a request (deployments of others are left out). */
export async function lastRequests(db: Db, viewer: Viewer, deploymentIds: readonly string[]): Promise<Record<string, string>> {
  return Object.fromEntries(await lastRequestAt(db, viewer.id, deploymentIds));
}
