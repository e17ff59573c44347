// An admin's edits of a catalogue entry, which the registry sync keeps (its 'local edits' flag),
// and taking the registry's version again (docs/operations.md#registry-sync).
import type { EntryEdit } from "~/shared/catalog-sync.js";
import { CATALOG_TEXT } from "~/shared/catalog.js";
import { SYNC_TEXT } from "~/shared/catalog-sync.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import { invalidateCatalog } from "../catalog/cache.js";
import { findServer, type ServerRow } from "../catalog/repo.js";
import { updateImported } from "../catalog/registry-repo.js";
import { serverJson } from "./format.js";
import { applyChanges, changesTo } from "./importer.js";
import { toRow } from "./import-row.js";

export async function editEntry(db: Db, id: string, edit: EntryEdit): Promise<ServerRow> {
  const row = await updateImported(db, id, { ...edit, tags: [...new Set(edit.tags)], localEdits: true });
  if (!row) throw new AppError("not_found", CATALOG_TEXT.notFound);
  await invalidateCatalog(db);
  return row;
}

/** The registry's version as last received, over the admin's edits; the sync keeps it in step again. */
export async function takeUpstream(db: Db, id: string): Promise<ServerRow> {
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", CATALOG_TEXT.notFound);
  const doc = existing.upstreamDoc ? serverJson.safeParse(existing.upstreamDoc) : undefined;
  if (!doc?.success) throw new AppError("conflict", SYNC_TEXT.noUpstream);
  await db.transaction((tx) => applyChanges(tx as unknown as Db, id, changesTo(existing, toRow(doc.data, id)), { localEdits: false }));
  await invalidateCatalog(db);
  return (await findServer(db, id)) ?? existing;
}
