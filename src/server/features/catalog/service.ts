import { AppError } from "../../errors.js";
import type { Db } from "../../db/client.js";
import { CATALOG_TEXT, RELATED_LIMIT, type CatalogServer, type ListQuery, type RequiredKey } from "~/shared/catalog.js";
import type { Viewer } from "../auth/viewer.js";
import { countServers, findServer, insertServers, type ServerRow } from "./repo.js";
import { relatedServers, searchServers, serverWithRelated } from "./search-repo.js";
import { SEED_SERVERS } from "./seed-data.js";
import { cached } from "./cache.js";

/** The public catalogue shape of an entry (the API and the directory pages). */
export function toCatalogServer(r: ServerRow): CatalogServer {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    tags: r.tags,
    type: r.type,
    category: r.category,
    repository_url: r.repositoryUrl,
    homepage: r.homepage,
    documentation: r.documentation,
    npx_command: r.npxCommand,
    required_keys: (r.requiredKeys as RequiredKey[] | null)?.length ? (r.requiredKeys as RequiredKey[]) : null,
    // Public popularity: people who used it in the last 30 days, never raw requests (docs/product.md#popularity).
    useCount: r.recentUsers,
  };
}

export async function listServers(db: Db, q: ListQuery) {
  const pageSize = q.pageSize;
  const params = {
    q: q.q?.trim().toLowerCase() || undefined,
    category: q.category,
    type: q.type,
    sort: q.sort ?? (q.q ? "relevance" : "popular"),
    limit: pageSize,
    offset: (q.page - 1) * pageSize,
  } as const;
  const { rows, total } = await cached(db, `search:${JSON.stringify(params)}`, () => searchServers(db, params));
  return {
    data: rows.map(toCatalogServer),
    pagination: { page: q.page, pageSize, total, totalPages: Math.max(1, Math.ceil(total / pageSize)) },
  };
}

/** A server as its page sees it: pending or rejected entries exist only for admins. */
export async function getServer(db: Db, id: string, viewer: Viewer | null): Promise<ServerRow> {
  const row = await cached(db, `server:${id}`, () => findServer(db, id));
  if (!row || (!row.isApproved && !viewer?.isAdmin)) throw new AppError("not_found", CATALOG_TEXT.notFound);
  return row;
}

export async function getRelated(db: Db, id: string, viewer: Viewer | null): Promise<CatalogServer[]> {
  const row = await getServer(db, id, viewer);
  return (await cached(db, `related:${id}`, () => relatedServers(db, row, RELATED_LIMIT))).map(toCatalogServer);
}

/** getServer and getRelated together, for the server's page: one query for both when the entry is approved. */
export async function getServerWithRelated(
  db: Db,
  id: string,
  viewer: Viewer | null,
): Promise<{ row: ServerRow; related: CatalogServer[] }> {
  const hit = await cached(db, `page:${id}`, () => serverWithRelated(db, id, RELATED_LIMIT));
  if (hit?.row.isApproved) return { row: hit.row, related: hit.related.map(toCatalogServer) };
  const row = await getServer(db, id, viewer);
  return { row, related: await getRelated(db, id, viewer) };
}

/** A fresh database gets the demo catalogue. */
export async function seedCatalogIfEmpty(db: Db, namespace = "localhost"): Promise<number> {
  if ((await countServers(db)) > 0) return 0;
  const now = Date.now();
  return insertServers(
    db,
    SEED_SERVERS.map((s, i) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      category: s.category,
      type: s.type,
      source: "official",
      tags: s.tags,
      repositoryUrl: s.repository_url,
      homepage: s.homepage ?? null,
      documentation: s.repository_url.includes("/tree/main/src/") ? `${s.repository_url}#readme` : null,
      npxCommand: s.npx_command ?? null,
      requiredKeys: s.required_keys?.length ? s.required_keys : null,
      isApproved: true,
      registryName: `${namespace}/${s.id}`,
      // Spread creation times so 'newest' has a stable order.
      createdAt: new Date(now - i * 60_000),
      updatedAt: new Date(now - i * 60_000),
    })),
  );
}
