import { DEPLOY_TEXT, type ServerKind } from "../../../shared/deployments.js";
import { CATALOG_TEXT } from "../../../shared/catalog.js";
import type { RequestLogPage, RequestLogQuery, ToolStat } from "../../../shared/request-log.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { getServer } from "../catalog/service.js";
import { getPublicOwnedServer } from "../publishers/service.js";
import { addBuckets, emptyBuckets, quantile } from "./histogram.js";
import { deploymentOwner, findRequests, recentMethods, recentToolStats } from "./repo.js";

/** The owner's request log of one deployment; another user's, or an unknown id, is not found (as every deployment route answers). */
export async function listRequests(db: Db, viewer: Viewer, deploymentId: string, q: RequestLogQuery): Promise<RequestLogPage> {
  const ownerId = /^[0-9a-f-]{36}$/.test(deploymentId) ? await deploymentOwner(db, deploymentId) : undefined;
  if (ownerId === undefined || ownerId !== viewer.id) throw new AppError("not_found", DEPLOY_TEXT.notFound);
  const [rows, methods] = await Promise.all([
    findRequests(db, deploymentId, { method: q.method || undefined, name: q.name || undefined, outcome: q.outcome || undefined, limit: q.limit }),
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
    })),
    methods,
  };
}

const round1 = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);

/**
 * Per tool over the last 24 hours, summed over every deployment of the server: calls, error rate
 * and p50/p95 latency. Counts only; nothing about who called. Usable from page loaders.
 */
export async function toolStats(db: Db, server: { kind: ServerKind; ref: string }): Promise<ToolStat[]> {
  const sums = new Map<string, { calls: number; errors: number; buckets: number[] }>();
  for (const r of await recentToolStats(db, server.kind, server.ref)) {
    let s = sums.get(r.tool);
    if (!s) sums.set(r.tool, (s = { calls: 0, errors: 0, buckets: emptyBuckets() }));
    s.calls += r.calls;
    s.errors += r.errors;
    addBuckets(s.buckets, r.buckets);
  }
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, s]) => ({
      name,
      calls: s.calls,
      error_rate: s.calls ? s.errors / s.calls : 0,
      p50_ms: round1(quantile(s.buckets, 0.5)),
      p95_ms: round1(quantile(s.buckets, 0.95)),
    }));
}

/**
 * A catalogue entry's figures, for everyone who may see the entry: many people deploy it, so they
 * say how its tools behave, not what anyone did. An owned server's, for its owner alone: only the
 * owner can deploy it, so its figures would be one person's usage.
 */
export async function publicToolStats(db: Db, viewer: Viewer | null, id: { catalog: string } | { owned: string }): Promise<ToolStat[]> {
  if ("catalog" in id) return toolStats(db, { kind: "catalog", ref: (await getServer(db, id.catalog, viewer)).id });
  const owned = await getPublicOwnedServer(db, id.owned);
  if (!owned) throw new AppError("not_found", CATALOG_TEXT.notFound);
  return owned.owner.id === viewer?.id ? toolStats(db, { kind: "owned", ref: owned.qualifiedName }) : [];
}
