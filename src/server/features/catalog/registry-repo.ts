// Entries by their registry name: the registry API's reads, the importer's writes, and names for
// entries created before registry names existed.
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { catalogListings, mcpServers } from "../../db/schema.js";
import { invalidateCatalog } from "./cache.js";
import type { NewServerRow, ServerRow } from "./repo.js";
import { seenByAll } from "./search-sql.js";

/** Import writes run inside the importer's per-entry transaction; it clears the cache once at the end. */
export async function insertImported(db: Db, row: NewServerRow): Promise<void> {
  await db.insert(mcpServers).values(row);
}

/** `touch: false` for bookkeeping that changes nothing a reader of the catalogue sees (updated_at stays). */
export async function updateImported(
  db: Db,
  id: string,
  changes: Partial<NewServerRow>,
  opts: { touch?: boolean } = {},
): Promise<ServerRow | undefined> {
  const [row] = await db
    .update(mcpServers)
    .set(opts.touch === false ? changes : { ...changes, updatedAt: new Date() })
    .where(eq(mcpServers.id, id))
    .returning();
  return row;
}

export interface RegistryListParams {
  after?: string;
  limit: number;
  search?: string;
  updatedSince?: Date;
  version?: string;
}

/**
 * Approved entries in registry-name order, for cursor pagination. Asked for changes
 * (`updatedSince`), withdrawn ones too: a registry that follows this one learns they were deleted.
 */
export async function listByRegistryName(db: Db, p: RegistryListParams): Promise<ServerRow[]> {
  const listed = p.updatedSince ? seenByAll() : eq(mcpServers.isApproved, true);
  const conds: SQL[] = [listed, sql`${mcpServers.registryName} is not null`];
  if (p.after) conds.push(sql`${mcpServers.registryName} > ${p.after}`);
  if (p.search) {
    const like = `%${p.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(sql`(lower(${mcpServers.registryName}) like ${like} or lower(${mcpServers.name}) like ${like})`);
  }
  if (p.updatedSince) conds.push(sql`${mcpServers.updatedAt} > ${p.updatedSince.toISOString()}`);
  if (p.version) conds.push(sql`coalesce(${mcpServers.version}, '1.0.0') = ${p.version}`);
  return db
    .select()
    .from(mcpServers)
    .where(and(...conds))
    .orderBy(mcpServers.registryName)
    .limit(p.limit);
}

export async function findByRegistryName(db: Db, name: string): Promise<ServerRow | undefined> {
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.registryName, name), eq(mcpServers.isApproved, true)));
  return row;
}

/** Entries created before registry names existed get `<namespace>/<id>`. */
export async function assignRegistryNames(db: Db, namespace: string): Promise<number> {
  const rows = await db
    .update(mcpServers)
    .set({ registryName: sql`${namespace} || '/' || ${mcpServers.id}` })
    .where(sql`${mcpServers.registryName} is null`)
    .returning({ id: mcpServers.id });
  invalidateCatalog(db);
  return rows.length;
}

/**
 * `base` if no entry has that id, else `base-N` past every numbered one: one read however many
 * names came to the same slug (an upstream sending thousands of them costs no more each).
 */
export async function freeIdFor(db: Db, base: string): Promise<string> {
  const taken = await db
    .select({ id: mcpServers.id })
    .from(mcpServers)
    .where(
      sql`${mcpServers.id} = ${base} or (${mcpServers.id} like ${`${base.replace(/[\\%_]/g, "\\$&")}-%`} and substr(${mcpServers.id}, ${base.length + 2}) ~ '^[0-9]{1,40}$')`,
    );
  if (!taken.some((r) => r.id === base)) return base;
  // Any number of digits (an upstream could take base-999999999 on purpose): compared as big integers.
  const highest = taken.reduce((max, r) => {
    const n = /^\d+$/.test(r.id.slice(base.length + 1)) ? BigInt(r.id.slice(base.length + 1)) : 0n;
    return n > max ? n : max;
  }, 1n);
  return `${base}-${highest + 1n}`;
}

/** The entry that holds `name`, compared without case (registry names are matched so): an exact match first. */
export async function findByRegistryNameAny(db: Db, name: string): Promise<ServerRow | undefined> {
  const rows = await db
    .select()
    .from(mcpServers)
    .where(sql`lower(${mcpServers.registryName}) = lower(${name})`)
    .orderBy(sql`${mcpServers.registryName} = ${name} desc`, mcpServers.id)
    .limit(1);
  return rows[0];
}

/**
 * What the entry runs changed (its package, command, address or keys): the platform's check of
 * it says nothing about the new one. Its outcome goes (the 'Works here' filter drops it and the
 * sync's checks take it again); a listing waiting for review goes with it. The listing an admin
 * approved stays, with its date.
 */
export async function forgetCheck(db: Db, id: string): Promise<void> {
  await db
    .update(catalogListings)
    // A check under way ran the old one: it is disowned (its listing is not saved, its deployment goes).
    .set({
      outcome: null,
      outcomeTools: null,
      outcomeDetail: null,
      candidate: null,
      candidateAt: null,
      checkStatus: null,
      checkDetail: null,
    })
    .where(eq(catalogListings.serverId, id));
  await db.update(mcpServers).set({ checkOutcome: null }).where(eq(mcpServers.id, id));
}

/** The oldest synced entry the platform has not checked yet (and is not checking), if any. */
export async function nextUnchecked(db: Db): Promise<string | undefined> {
  const r = await db.execute<{ id: string }>(sql`
    select m.id from mcp_servers m left join catalog_listings l on l.server_id = m.id
    where m.upstream is not null and m.is_approved and m.withdrawn_at is null and m.check_outcome is null
      and l.check_status is distinct from 'checking'
    order by m.created_at, m.id limit 1`);
  return r.rows[0]?.id;
}
