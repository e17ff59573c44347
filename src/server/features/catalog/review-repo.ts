// Review of submissions: the admin's lists and counts, approving and rejecting, and what a
// submitter sees of their own entries (My submissions).
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { catalogListings, mcpServers, profiles, rejectedSubmissions } from "../../db/schema.js";
import { invalidateCatalog } from "./cache.js";
import type { ServerRow } from "./repo.js";

export interface AdminRow extends ServerRow {
  submitterUsername: string | null;
  submitterEmail: string | null;
  /** its public (approved) listing and the latest check's candidate, and how its last check went */
  approvedListing: unknown;
  candidateListing: unknown;
  checkStatus: string | null;
  checkDetail: string | null;
}

/** Admin lists join the submitter's profile, newest first. */
export async function listForAdmin(db: Db, approved: boolean, limit: number): Promise<AdminRow[]> {
  const rows = await db
    .select({
      s: mcpServers,
      username: profiles.username,
      email: profiles.email,
      approved: catalogListings.approved,
      candidate: catalogListings.candidate,
      checkStatus: catalogListings.checkStatus,
      checkDetail: catalogListings.checkDetail,
    })
    .from(mcpServers)
    .leftJoin(profiles, eq(profiles.id, mcpServers.submittedBy))
    .leftJoin(catalogListings, eq(catalogListings.serverId, mcpServers.id))
    // An entry withdrawn by its registry is in neither list: nothing to review, nothing to reject.
    .where(and(eq(mcpServers.isApproved, approved), isNull(mcpServers.withdrawnAt)))
    .orderBy(desc(mcpServers.createdAt), mcpServers.id)
    .limit(limit);
  return rows.map((r) => ({
    ...r.s,
    submitterUsername: r.username,
    submitterEmail: r.email,
    approvedListing: r.approved,
    candidateListing: r.candidate,
    checkStatus: r.checkStatus,
    checkDetail: r.checkDetail,
  }));
}

export async function countByApproval(db: Db): Promise<{ pending: number; approved: number }> {
  const rows = await db
    .select({ approved: mcpServers.isApproved, n: sql<number>`count(*)::int` })
    .from(mcpServers)
    .where(isNull(mcpServers.withdrawnAt))
    .groupBy(mcpServers.isApproved);
  return {
    pending: rows.find((r) => !r.approved)?.n ?? 0,
    approved: rows.find((r) => r.approved)?.n ?? 0,
  };
}

export async function setApproval(db: Db, id: string, approved: boolean): Promise<ServerRow | undefined> {
  const [row] = await db
    .update(mcpServers)
    // A synced entry remembers that an admin took it off the list: its registry never relists it.
    .set({ isApproved: approved, adminHold: approved ? null : "unapproved", updatedAt: new Date() })
    .where(and(eq(mcpServers.id, id), eq(mcpServers.isApproved, !approved), isNull(mcpServers.withdrawnAt)))
    .returning();
  invalidateCatalog(db);
  return row;
}

/** Whom a rejection concerns: the entry's name and its submitter's address (none for an imported entry). */
export interface Rejected {
  name: string;
  submitterEmail: string | null;
}

/**
 * A rejection: the pending entry goes and its submitter keeps a line of it with the admin's reason
 * (My submissions), together. An imported entry (the registry sync's, or a file's) is withdrawn
 * here instead, for good, and answers 404 like a deleted one: deleted, its registry's next change
 * or the next import would bring it back. Undefined when no pending entry has that id.
 */
export async function deletePending(db: Db, id: string, reason: string | null): Promise<Rejected | undefined> {
  const gone = await db.transaction(async (tx) => {
    const [held] = await tx
      .update(mcpServers)
      .set({ adminHold: "rejected", withdrawnAt: new Date(), updatedAt: new Date() })
      .where(
        and(eq(mcpServers.id, id), eq(mcpServers.isApproved, false), isNull(mcpServers.withdrawnAt), eq(mcpServers.source, "imported")),
      )
      .returning({ name: mcpServers.name });
    if (held) return { name: held.name, submitterEmail: null };
    const [row] = await tx
      .delete(mcpServers)
      .where(and(eq(mcpServers.id, id), eq(mcpServers.isApproved, false), isNull(mcpServers.withdrawnAt)))
      .returning({ id: mcpServers.id, name: mcpServers.name, submittedBy: mcpServers.submittedBy, createdAt: mcpServers.createdAt });
    if (!row) return undefined;
    if (!row.submittedBy) return { name: row.name, submitterEmail: null };
    await tx
      .insert(rejectedSubmissions)
      .values({ serverId: row.id, name: row.name, submittedBy: row.submittedBy, submittedAt: row.createdAt, reason });
    const [who] = await tx.select({ email: profiles.email }).from(profiles).where(eq(profiles.id, row.submittedBy));
    return { name: row.name, submitterEmail: who?.email ?? null };
  });
  invalidateCatalog(db);
  return gone;
}

export interface SubmissionLine {
  id: string;
  name: string;
  status: "pending" | "approved" | "rejected";
  submittedAt: Date;
  /** when it was approved (its last change) or rejected */
  decidedAt: Date | null;
  /** a rejection's reason, when the admin gave one */
  reason: string | null;
}

/** A submitter's entries, newest first: pending and approved ones as they are, rejected ones as they were (at most `limit` of each). */
export async function submissionsOf(db: Db, userId: string, limit = 200): Promise<SubmissionLine[]> {
  const [live, rejected] = await Promise.all([
    db
      .select({
        id: mcpServers.id,
        name: mcpServers.name,
        approved: mcpServers.isApproved,
        createdAt: mcpServers.createdAt,
        updatedAt: mcpServers.updatedAt,
      })
      .from(mcpServers)
      .where(eq(mcpServers.submittedBy, userId))
      .orderBy(desc(mcpServers.createdAt))
      .limit(limit),
    db
      .select()
      .from(rejectedSubmissions)
      .where(eq(rejectedSubmissions.submittedBy, userId))
      .orderBy(desc(rejectedSubmissions.rejectedAt))
      .limit(limit),
  ]);
  const lines: SubmissionLine[] = [
    ...live.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.approved ? ("approved" as const) : ("pending" as const),
      submittedAt: r.createdAt,
      decidedAt: r.approved ? r.updatedAt : null,
      reason: null,
    })),
    ...rejected.map((r) => ({
      id: r.serverId,
      name: r.name,
      status: "rejected" as const,
      submittedAt: r.submittedAt,
      decidedAt: r.rejectedAt,
      reason: r.reason,
    })),
  ];
  return lines.sort((a, b) => b.submittedAt.getTime() - a.submittedAt.getTime());
}
