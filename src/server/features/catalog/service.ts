import { z } from "zod";
import { AppError } from "../../errors.js";
import type { Db } from "../../db/client.js";
import {
  CATALOG_TEXT,
  CHECK_OUTCOMES,
  listQuery,
  RELATED_LIMIT,
  type CheckOutcome,
  type CatalogServer,
  type ListQuery,
  type RequiredKey,
} from "~/shared/catalog.js";
import type { Viewer } from "../auth/viewer.js";
import { countServers, findServer, insertServers, withdrawnAmong, type ServerRow } from "./repo.js";
import { popularityAsOf } from "./asof-repo.js";
import { relatedServers, searchServers, serverWithRelated, type CardRow } from "./search-repo.js";
import { SEED_SERVERS } from "./seed-data.js";
import { cached } from "./cache.js";

/** The public catalogue shape of an entry (the API and the directory pages). */
export function toCatalogServer(r: CardRow): CatalogServer {
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
    ...(r.upstreamStatus === "deprecated" ? { deprecated: true } : {}),
    ...(r.withdrawnAt ? { withdrawn: true } : {}),
    // Extra fields only where they say something: the spec's catalogue shape stays as it is otherwise.
    ...((CHECK_OUTCOMES as readonly string[]).includes(r.checkOutcome ?? "") ? { check_outcome: r.checkOutcome as CheckOutcome } : {}),
  };
}

/** A cursor names a listing (its filters, sort and page size), the next page, and when the listing began. */
const cursorShape = z.object({
  v: z.literal(1),
  at: z.number().int(),
  page: z.number().int().min(2).max(10_000),
  q: listQuery.shape.q,
  category: listQuery.shape.category,
  type: listQuery.shape.type,
  sort: listQuery.shape.sort,
  works: listQuery.shape.works,
  pageSize: z.number().int().min(1).max(100),
  /** the previous page's last entries, its last first: the next page starts after them (entries added or removed meanwhile shift nothing) */
  after: z.array(z.string().max(200)).max(3).optional(),
  /** the name and count (as the listing ordered it) the last of them had then: its place */
  afterKey: z.object({ name: z.string().max(1000), users: z.number().int().min(0).max(2_147_483_647) }).optional(),
});
type Cursor = z.infer<typeof cursorShape>;
/** Paging on by cursor keeps the order the listing began with for this long (popularity_changes keeps two hours). */
const CURSOR_TTL_MS = 3_600_000;

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString("base64url");

function decodeCursor(token: string): Cursor {
  let parsed: Cursor;
  try {
    parsed = cursorShape.parse(JSON.parse(Buffer.from(token, "base64url").toString("utf8")));
  } catch {
    throw new AppError("validation_failed", CATALOG_TEXT.badCursor);
  }
  const age = Date.now() - parsed.at;
  if (age > CURSOR_TTL_MS || age < -60_000) throw new AppError("validation_failed", CATALOG_TEXT.cursorExpired);
  return parsed;
}

/**
 * One page of the directory. With `cursor` (the previous answer's nextCursor) it is the next page
 * of that listing in the order it began with: entries whose popularity changed since keep their old
 * place (popularity_changes), so a client paging on never sees one twice or misses one.
 */
export async function listServers(db: Db, query: ListQuery) {
  const c = query.cursor ? decodeCursor(query.cursor) : undefined;
  const q: Omit<Cursor, "v" | "at"> = c ?? { ...query, page: query.page };
  const at = c?.at ?? Date.now();
  const pageSize = q.pageSize;
  const params = {
    q: q.q?.trim().toLowerCase() || undefined,
    category: q.category,
    type: q.type,
    works: q.works === "1",
    sort: q.sort ?? (q.q ? "relevance" : "popular"),
    limit: pageSize,
    offset: (q.page - 1) * pageSize,
    after: c?.after,
    afterKey: c?.afterKey,
  } as const;
  const asOf = c && params.sort !== "name" && params.sort !== "newest" ? await popularityAsOf(db, new Date(c.at)) : undefined;
  // As of now (nothing moved since the listing began), the page is the same as anyone's: cached.
  const { rows, total } = asOf?.size
    ? await searchServers(db, { ...params, asOf })
    : await cached(db, `search:${JSON.stringify(params)}`, () => searchServers(db, params));
  const totalPages = Math.max(1, Math.ceil(total / pageSize));
  // Paged by cursor, a full page has a next one even if the total shrank meanwhile (entries ahead
  // of the place reached were withdrawn): the total is counted again on each page.
  const more = q.page < totalPages || (c !== undefined && rows.length === pageSize);
  const next: Cursor | null =
    more && rows.length > 0
      ? {
          v: 1,
          at,
          page: q.page + 1,
          q: q.q,
          category: q.category,
          type: q.type,
          sort: q.sort,
          works: q.works,
          pageSize,
          after: rows
            .slice(-3)
            .map((r) => r.id)
            .reverse(),
          afterKey: { name: rows.at(-1)!.name, users: asOf?.get(rows.at(-1)!.id) ?? rows.at(-1)!.recentUsers },
        }
      : null;
  return {
    data: rows.map(toCatalogServer),
    pagination: { page: q.page, pageSize, total, totalPages },
    nextCursor: next ? encodeCursor(next) : null,
  };
}

/**
 * A server as its page sees it: pending or rejected entries exist only for admins. An entry its
 * registry withdrew is unlisted but keeps its page, which says so (whoever deployed it finds it).
 * (search-sql.ts seenByAll says the same in SQL.)
 */
export async function getServer(db: Db, id: string, viewer: Viewer | null): Promise<ServerRow> {
  const row = await cached(db, `server:${id}`, () => findServer(db, id));
  const seen = row && (row.isApproved || (row.withdrawnAt && !row.adminHold));
  if (!row || (!seen && !viewer?.isAdmin)) throw new AppError("not_found", CATALOG_TEXT.notFound);
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
      // The platform's own entries: trusted while they run this command (deployments/checks/seed-checks.ts).
      seedCommand: s.npx_command ?? null,
      requiredKeys: s.required_keys?.length ? s.required_keys : null,
      isApproved: true,
      registryName: `${namespace}/${s.id}`,
      // Spread creation times so 'newest' has a stable order.
      createdAt: new Date(now - i * 60_000),
      updatedAt: new Date(now - i * 60_000),
    })),
  );
}

/** Of the catalogue entries some deployments run, those their registry withdrew (My deployments says so). */
export async function withdrawnEntries(db: Db, serverIds: string[]): Promise<string[]> {
  return withdrawnAmong(db, [...new Set(serverIds.filter((id) => !id.includes("/")))]);
}
