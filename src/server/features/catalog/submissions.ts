import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import { ADMIN_TEXT, SUBMIT_TEXT, type AdminServer, type RequiredKey, type ServerRecord, type SubmissionRequest } from "../../../shared/catalog.js";
import type { Viewer } from "../auth/viewer.js";
import { countByApproval, deletePending, findServer, insertSubmission, listForAdmin, setApproval, type AdminRow, type ServerRow } from "./repo.js";
import { toCatalogServer } from "./service.js";

export function toRecord(r: ServerRow): ServerRecord {
  return {
    ...toCatalogServer(r),
    url: r.url,
    logo: r.logo,
    source: r.source,
    is_approved: r.isApproved,
    submitted_by: r.submittedBy,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

function toAdmin(r: AdminRow): AdminServer {
  return {
    ...toRecord(r),
    submitter: { username: r.submitterUsername ?? ADMIN_TEXT.unknown, email: r.submitterEmail ?? ADMIN_TEXT.unknown },
  };
}

/** A submission waits for review; an admin's own submission is listed at once (decisions.md). */
export async function submitServer(db: Db, viewer: Viewer | null, s: SubmissionRequest, namespace = "localhost"): Promise<ServerRecord> {
  if (!viewer) throw new AppError("unauthorized", SUBMIT_TEXT.mustLogin);
  const keys = (s.required_keys ?? []) as RequiredKey[];
  const r = await insertSubmission(db, {
    id: s.id,
    name: s.name,
    description: s.description,
    category: s.category,
    type: s.type,
    source: s.source,
    tags: s.tags,
    url: s.url ?? null,
    logo: s.logo ?? null,
    repositoryUrl: s.repository_url ?? null,
    homepage: s.homepage ?? null,
    documentation: s.documentation ?? null,
    npxCommand: s.npx_command ?? null,
    requiredKeys: keys.length ? keys : null,
    isApproved: viewer.isAdmin,
    submittedBy: viewer.id,
    registryName: `${namespace}/${s.id}`,
    useCount: 0,
  });
  if (!r.ok) throw new AppError("conflict", SUBMIT_TEXT.duplicate);
  return toRecord(r.row);
}

function requireAdmin(viewer: Viewer | null): void {
  if (!viewer) throw new AppError("unauthorized", "You must be logged in");
  if (!viewer.isAdmin) throw new AppError("forbidden", "Admins only");
}

export const ADMIN_LIST_LIMIT = 50;

export async function adminList(db: Db, viewer: Viewer | null, status: "pending" | "approved") {
  requireAdmin(viewer);
  const [rows, counts] = await Promise.all([listForAdmin(db, status === "approved", ADMIN_LIST_LIMIT), countByApproval(db)]);
  return { data: rows.map(toAdmin), counts };
}

export async function approve(db: Db, viewer: Viewer | null, id: string): Promise<ServerRecord> {
  requireAdmin(viewer);
  const row = await setApproval(db, id, true);
  if (row) return toRecord(row);
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", "Server not found");
  throw new AppError("conflict", "This server is already approved");
}

export async function unapprove(db: Db, viewer: Viewer | null, id: string): Promise<ServerRecord> {
  requireAdmin(viewer);
  const row = await setApproval(db, id, false);
  if (row) return toRecord(row);
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", "Server not found");
  throw new AppError("conflict", "This server is not approved");
}

export async function reject(db: Db, viewer: Viewer | null, id: string): Promise<void> {
  requireAdmin(viewer);
  if (await deletePending(db, id)) return;
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", "Server not found");
  throw new AppError("conflict", "Only pending submissions can be rejected; unapprove it first");
}
