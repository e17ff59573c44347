import type { Db } from "../../db/client.js";
import { invalidateCatalog } from "../catalog/cache.js";
import { findServer, type NewServerRow } from "../catalog/repo.js";
import { findByRegistryNameAny, insertImported, updateImported } from "../catalog/registry-repo.js";
import { normalise, serverJson } from "./format.js";
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

/** Imports server.json documents idempotently; each entry is written whole or not at all. */
export async function importEntries(db: Db, entries: unknown[]): Promise<ImportReport> {
  const report: ImportReport = { created: [], updated: [], unchanged: [], invalid: [] };
  for (const raw of entries) {
    const given = raw && typeof raw === "object" ? (raw as { name?: unknown }).name : undefined;
    const label = typeof given === "string" && given.trim() ? given : "(unnamed)";
    const parsed = serverJson.safeParse(normalise(raw));
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      report.invalid.push({ name: label, reason: `${i?.path.join(".") || "entry"}: ${i?.message ?? "invalid"}` });
      continue;
    }
    const s = parsed.data;
    try {
      await db.transaction(async (tx) => {
        const existing = await findByRegistryNameAny(tx as unknown as Db, s.name);
        if (existing) {
          const next = toRow(s, existing.id);
          const changes: Partial<NewServerRow> = {};
          for (const k of COMPARED) if (!same(existing[k], next[k])) (changes as Record<string, unknown>)[k] = next[k];
          if (Object.keys(changes).length === 0) {
            report.unchanged.push(s.name);
            return;
          }
          await updateImported(tx as unknown as Db, existing.id, changes);
          report.updated.push(s.name);
          return;
        }
        const base = slugFor(s.name);
        let id = base;
        for (let n = 2; await findServer(tx as unknown as Db, id); n++) id = `${base}-${n}`;
        await insertImported(tx as unknown as Db, toRow(s, id));
        report.created.push(s.name);
      });
    } catch (e) {
      report.invalid.push({ name: s.name, reason: (e as Error).message.split("\n")[0] ?? "database error" });
    }
  }
  if (report.created.length || report.updated.length) invalidateCatalog(db);
  return report;
}
