// Entries from an official-registry compatible source into the catalogue, one whole entry at a
// time: the import command (a file) and the registry sync (sync.ts) share importEntry.
import type { Db } from "../../db/client.js";
import { invalidateCatalog } from "../catalog/cache.js";
import type { NewServerRow, ServerRow } from "../catalog/repo.js";
import { findByRegistryNameAny, forgetCheck, freeIdFor, insertImported, updateImported } from "../catalog/registry-repo.js";
import { normalise, serverJson, type ServerJson } from "./format.js";
import { slugFor, toRow } from "./import-row.js";

export interface ImportReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  invalid: Array<{ name: string; reason: string }>;
}

/** The documents a file may hold: an array, a v0.1 list answer, one ServerResponse, or one server.json. */
export function entriesOf(doc: unknown): unknown[] {
  if (Array.isArray(doc)) return doc.map((d) => (d && typeof d === "object" && "server" in d ? (d as { server: unknown }).server : d));
  if (doc && typeof doc === "object") {
    const o = doc as Record<string, unknown>;
    if (Array.isArray(o.servers)) return entriesOf(o.servers);
    if ("server" in o) return [o.server];
    return [o];
  }
  return [];
}

const COMPARED = [
  "name",
  "description",
  "category",
  "type",
  "url",
  "tags",
  "repositoryUrl",
  "homepage",
  "npxCommand",
  "requiredKeys",
  "version",
  "packages",
] as const;
// PostgreSQL's jsonb reorders object keys, so compare with keys sorted.
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object" && !(v instanceof Date))
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, canonical(x)]),
    );
  return v ?? null;
}
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** What the catalogue would change in `existing` to match `next` (the compared fields only). */
export function changesTo(existing: ServerRow, next: NewServerRow): Partial<NewServerRow> {
  const changes: Partial<NewServerRow> = {};
  for (const k of COMPARED) if (!same(existing[k], next[k])) (changes as Record<string, unknown>)[k] = next[k];
  return changes;
}

/** What an entry runs: a change to any of these makes the platform's check of it say nothing. */
const RUN_FIELDS = ["type", "url", "npxCommand", "requiredKeys", "version", "packages"] as const;
/** What an admin edits here (shared/catalog-sync.ts entryEdit): the sync keeps these while 'local edits' is set. */
const EDITED_FIELDS = ["name", "description", "category", "tags"] as const;

/**
 * Writes `changes` (and `extra`) to the entry; when what it runs changed, its check is forgotten
 * (a 'Works here' earned by one package never vouches for another).
 */
export async function applyChanges(tx: Db, id: string, changes: Partial<NewServerRow>, extra: Partial<NewServerRow> = {}): Promise<void> {
  if (Object.keys(changes).length + Object.keys(extra).length === 0) return;
  await updateImported(tx, id, { ...changes, ...extra });
  if (RUN_FIELDS.some((k) => k in changes)) await forgetCheck(tx, id);
}

/** The upstream's word on one entry (the registry's `_meta` of it); none for a file import. */
export interface UpstreamMeta {
  /** REGISTRY_SYNC_URL */
  upstream: string;
  /** this site's own namespace (its submissions' registry names): never the upstream's to take */
  ownNamespace?: string;
  status: "active" | "deprecated" | "deleted";
  updatedAt: Date | null;
}

export type ImportOutcome =
  | { action: "created" | "updated" | "unchanged" | "withdrawn" | "kept-local"; name: string }
  | { action: "invalid" | "skipped"; name: string; reason: string };

/** A local entry (submitted here, or the demo catalogue) owns its name: the upstream's is skipped. */
export const COLLISION = "the name belongs to a local entry";
export const OTHER_UPSTREAM = "the entry is kept in step with another registry";
export const OWN_NAMESPACE = "the name is in this site's own namespace";

function labelOf(raw: unknown): string {
  const given = raw && typeof raw === "object" ? (raw as { name?: unknown }).name : undefined;
  return typeof given === "string" && given.trim() ? given.slice(0, 200) : "(unnamed)";
}

const freeId = (db: Db, name: string) => freeIdFor(db, slugFor(name));

/**
 * One entry, written whole or not at all. Without `meta` (a file): created or updated like any
 * import. With it (the sync): the upstream's status applies (deprecated shown, deleted unlisted,
 * never deleted), a local entry's name is never taken, and an admin's local edits are kept.
 */
export async function importEntry(db: Db, raw: unknown, meta?: UpstreamMeta): Promise<ImportOutcome> {
  const label = labelOf(raw);
  const parsed = serverJson.safeParse(normalise(raw));
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return { action: "invalid", name: label, reason: `${i?.path.join(".") || "entry"}: ${i?.message ?? "invalid"}` };
  }
  const s = parsed.data;
  try {
    return await db.transaction(async (t) => {
      const tx = t as unknown as Db;
      // Names are matched without case: 'COM.EXAMPLE/Clock' is the entry 'com.example/clock'.
      const existing = await findByRegistryNameAny(tx, s.name);
      // A local entry (submitted here, or the demo catalogue) is never taken over, by a sync or a file.
      if (existing && existing.source !== "imported") return { action: "skipped" as const, name: s.name, reason: COLLISION };
      // Nor is a name this site gives its own submissions.
      if (meta?.ownNamespace && s.name.toLowerCase().startsWith(`${meta.ownNamespace.toLowerCase()}/`))
        return { action: "skipped" as const, name: s.name, reason: OWN_NAMESPACE };
      // Adopted only when it came from an import of the same registry's data (no upstream yet).
      if (meta && existing?.upstream && existing.upstream !== meta.upstream)
        return { action: "skipped" as const, name: s.name, reason: OTHER_UPSTREAM };
      return meta ? await fromUpstream(tx, s, existing, meta) : await fromFile(tx, s, existing);
    });
  } catch (e) {
    return { action: "invalid", name: s.name, reason: (e as Error).message.split("\n")[0] ?? "database error" };
  }
}

/** The changes an admin's local edits leave to upstream: everything but the edited fields. */
function notEdited(changes: Partial<NewServerRow>): Partial<NewServerRow> {
  const rest: Partial<NewServerRow> = { ...changes };
  for (const k of EDITED_FIELDS) delete rest[k];
  return rest;
}

async function fromFile(tx: Db, s: ServerJson, existing: ServerRow | undefined): Promise<ImportOutcome> {
  if (!existing) {
    await insertImported(tx, toRow(s, await freeId(tx, s.name)));
    return { action: "created", name: s.name };
  }
  if (existing.adminHold === "rejected") return { action: "unchanged", name: s.name };
  const changes = changesTo(existing, toRow(s, existing.id));
  if (existing.localEdits) {
    await applyChanges(tx, existing.id, notEdited(changes));
    return { action: "kept-local", name: s.name };
  }
  if (Object.keys(changes).length === 0) return { action: "unchanged", name: s.name };
  await applyChanges(tx, existing.id, changes);
  return { action: "updated", name: s.name };
}

async function fromUpstream(tx: Db, s: ServerJson, existing: ServerRow | undefined, meta: UpstreamMeta): Promise<ImportOutcome> {
  const upstream = { upstream: meta.upstream, upstreamStatus: meta.status, upstreamDoc: s, upstreamUpdatedAt: meta.updatedAt };
  if (existing?.adminHold === "rejected") {
    // An admin rejected it: nothing the registry sends changes it (the document is kept, unseen).
    await updateImported(tx, existing.id, upstream, { touch: false });
    return { action: "unchanged", name: s.name };
  }
  if (meta.status === "deleted") {
    // Never deleted: whoever deployed or connected it keeps it, and its page says it was withdrawn.
    if (!existing) return { action: "unchanged", name: s.name };
    if (existing.withdrawnAt) return { action: "unchanged", name: s.name };
    await updateImported(tx, existing.id, { ...upstream, isApproved: false, withdrawnAt: new Date() });
    return { action: "withdrawn", name: s.name };
  }
  if (!existing) {
    await insertImported(tx, { ...toRow(s, await freeId(tx, s.name)), ...upstream });
    return { action: "created", name: s.name };
  }
  // Back from deleted: listed again, or pending again if an admin had taken it off the list; one an
  // admin rejected stays withdrawn. Otherwise approval stays as an admin left it.
  const restored =
    existing.withdrawnAt && existing.adminHold !== "rejected" ? { isApproved: existing.adminHold !== "unapproved", withdrawnAt: null } : {};
  const statusChanged = existing.upstreamStatus !== meta.status || existing.upstream !== meta.upstream;
  const stillWithdrawn = existing.withdrawnAt && !("withdrawnAt" in restored);
  const changes = changesTo(existing, toRow(s, existing.id));
  if (existing.localEdits) {
    // The admin's words stay; what the entry runs (its version, package, keys) follows upstream.
    await applyChanges(tx, existing.id, notEdited(changes), { ...upstream, ...restored });
    return { action: "kept-local", name: s.name };
  }
  if (Object.keys(changes).length === 0 && !statusChanged && (!existing.withdrawnAt || stillWithdrawn)) {
    // The document as received is kept up to date ('Take upstream' applies it) without a catalogue change.
    await updateImported(tx, existing.id, { upstreamDoc: s, upstreamUpdatedAt: meta.updatedAt }, { touch: false });
    return { action: "unchanged", name: s.name };
  }
  await applyChanges(tx, existing.id, changes, { ...upstream, ...restored });
  return { action: "updated", name: s.name };
}

/** Imports server.json documents (a file) idempotently; each entry is written whole or not at all. */
export async function importEntries(db: Db, entries: unknown[]): Promise<ImportReport> {
  const report: ImportReport = { created: [], updated: [], unchanged: [], invalid: [] };
  for (const raw of entries) {
    const r = await importEntry(db, raw);
    if (r.action === "invalid" || r.action === "skipped") report.invalid.push({ name: r.name, reason: r.reason });
    else if (r.action === "created" || r.action === "updated") report[r.action].push(r.name);
    else report.unchanged.push(r.name);
  }
  if (report.created.length || report.updated.length) await invalidateCatalog(db);
  return report;
}
