import type { Db, DbOrTx } from "../../db/client.js";
import { AppError } from "../../errors.js";
import {
  ADMIN_TEXT,
  SUBMIT_TEXT,
  type AdminServer,
  type RequiredKey,
  type ServerRecord,
  type SubmissionLine,
  type SubmissionRequest,
} from "~/shared/catalog.js";
import type { Logger } from "../../log.js";
import type { Viewer } from "../auth/viewer.js";
import type { Mailer } from "../mail/mailer.js";
import { rejectionMail } from "../mail/templates.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { findServer, insertSubmission, type ServerRow } from "./repo.js";
import { countByApproval, deletePending, listForAdmin, setApproval, submissionsOf, type AdminRow } from "./review-repo.js";
import { toCatalogServer } from "./service.js";
import { invalidateCatalog } from "./cache.js";

/**
 * What the review asks of the entries' check listings, which features/deployments keeps (its
 * `listingReview`, filled in by the app): the admin sees what a check found and what running the
 * entry would be, and approving makes the checked listing the public one.
 */
export interface ListingReview {
  /** the entry's latest check listing becomes its public one, in the caller's transaction; false when none waits */
  approve(tx: DbOrTx, serverId: string): Promise<boolean>;
  /** how the latest check's tools differ from the public ones, by name; null when no check listing waits */
  toolsChanged(approvedListing: unknown, candidateListing: unknown): AdminServer["tools_changed"];
  /** what running the entry would be: its command, repository or remote URL, or why it cannot run here */
  runs(entry: ServerRow): AdminServer["runs"];
}

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
    synced: r.upstream !== null,
    local_edits: r.localEdits,
  };
}

function toAdmin(r: AdminRow, review: ListingReview): AdminServer {
  return {
    ...toRecord(r),
    submitter: { username: r.submitterUsername ?? ADMIN_TEXT.unknown, email: r.submitterEmail ?? ADMIN_TEXT.unknown },
    tools_changed: review.toolsChanged(r.approvedListing, r.candidateListing),
    public_listing: Array.isArray((r.approvedListing as { tools?: unknown } | null)?.tools),
    check: r.checkStatus === "checking" || r.checkStatus === "failed" ? { status: r.checkStatus, detail: r.checkDetail } : null,
    runs: review.runs(r),
  };
}

/** A submission waits for review; an admin's own submission is listed at once. */
export async function submitServer(db: Db, viewer: Viewer, s: SubmissionRequest, namespace = "localhost"): Promise<ServerRecord> {
  // A key limited to some servers cannot add another one.
  if (!keyReaches(viewer, { kind: "catalog", ref: s.id })) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
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

// The review functions below are for admins only: their routes (submission-routes.ts) and the
// admin page check that before calling them.

export const ADMIN_LIST_LIMIT = 50;

export async function adminList(db: Db, status: "pending" | "approved", review: ListingReview) {
  const [rows, counts] = await Promise.all([listForAdmin(db, status === "approved", ADMIN_LIST_LIMIT), countByApproval(db)]);
  return { data: rows.map((r) => toAdmin(r, review)), counts };
}

/**
 * Approving lists the entry and makes the listing the admin saw on its card (its latest check's,
 * when one waits) the public one, both or neither.
 */
export async function approve(db: Db, id: string, review: Pick<ListingReview, "approve">): Promise<ServerRecord> {
  const row = await db.transaction(async (tx) => {
    const r = await setApproval(tx, id, true);
    if (r) await review.approve(tx, id);
    return r;
  });
  if (row) {
    // The caches are the database's, not the transaction's, and may refill only once it committed.
    await invalidateCatalog(db);
    return toRecord(row);
  }
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", "Server not found");
  throw new AppError("conflict", "This server is already approved");
}

export async function unapprove(db: Db, id: string): Promise<ServerRecord> {
  const row = await setApproval(db, id, false);
  if (row) return toRecord(row);
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", "Server not found");
  throw new AppError("conflict", "This server is not approved");
}

/** The entry's latest check listing becomes its public one (nothing to accept is no error). */
export async function acceptTools(db: Db, id: string, review: Pick<ListingReview, "approve">): Promise<void> {
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", "Server not found");
  await review.approve(db, id);
}

/** How a rejection reaches its submitter: an e-mail with a link to My submissions. */
export interface RejectionNotice {
  mailer: Mailer;
  log: Logger;
  site: string;
  publicUrl: string;
}

/**
 * Rejects a pending entry, keeping the admin's reason for its submitter, who is told by e-mail. The
 * rejection stands when the e-mail cannot be sent (My submissions says it too): that is logged.
 */
export async function reject(db: Db, id: string, reason: string | null, notice: RejectionNotice): Promise<void> {
  const rejected = await deletePending(db, id, reason);
  if (rejected) {
    if (rejected.submitterEmail)
      await notice.mailer
        .send(
          rejectionMail(notice.site, rejected.submitterEmail, { name: rejected.name, id, reason, url: `${notice.publicUrl}/submissions` }),
        )
        .catch((e: unknown) => notice.log.warn({ err: e, server: id }, "the rejection e-mail could not be sent"));
    return;
  }
  const existing = await findServer(db, id);
  if (!existing) throw new AppError("not_found", "Server not found");
  throw new AppError("conflict", "Only pending submissions can be rejected; unapprove it first");
}

/** 'My submissions': the viewer's entries, pending, approved or rejected, newest first. */
export async function mySubmissions(db: Db, viewer: Viewer): Promise<SubmissionLine[]> {
  return (await submissionsOf(db, viewer.id)).map((l) => ({
    id: l.id,
    name: l.name,
    status: l.status,
    submitted_at: l.submittedAt.toISOString(),
    decided_at: l.decidedAt?.toISOString() ?? null,
    reason: l.reason,
  }));
}
