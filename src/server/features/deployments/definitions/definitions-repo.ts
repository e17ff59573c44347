import { and, asc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { DefinitionChange, DefinitionKind, DefinitionReviewView } from "~/shared/definitions.js";
import type { Db } from "../../../db/client.js";
import { definitionPins, definitionReviews } from "../../../db/schema.js";
import type { Listing } from "../../runtime/runner.js";
import { DefinitionReview, definitionOf, jsonbSafe, MAX_DEFINITIONS, type Definition } from "./definitions.js";

// Pinned definitions in the database (docs/gateway.md#pinned-definitions): per user and server,
// so a deployment stopped and deployed again (a new package version, say) is compared with what its
// owner approved before.

export interface PinOwner {
  userId: string;
  serverKind: string;
  serverRef: string;
}

/** Only the owner's three columns (callers pass whole deployment rows). */
const own = (o: PinOwner): PinOwner => ({ userId: o.userId, serverKind: o.serverKind, serverRef: o.serverRef });
const ofOwner = (o: PinOwner) =>
  and(eq(definitionPins.userId, o.userId), eq(definitionPins.serverKind, o.serverKind), eq(definitionPins.serverRef, o.serverRef));
const reviewOf = (o: PinOwner) =>
  and(eq(definitionReviews.userId, o.userId), eq(definitionReviews.serverKind, o.serverKind), eq(definitionReviews.serverRef, o.serverRef));

/**
 * A deployment went (Stop Server): what was pinned for it goes too, but for what a catalogue
 * entry's deployment had approved (a later deployment of the same entry is compared with it, so a
 * server that changes its tools between two deployments is still caught). An owned server's pins,
 * and every definition never approved, go at once; the rows kept hold no current copy.
 */
export async function prunePins(tx: Db, o: PinOwner): Promise<void> {
  if (o.serverKind !== "catalog") {
    await tx.delete(definitionPins).where(ofOwner(o));
    await tx.delete(definitionReviews).where(reviewOf(o));
    return;
  }
  await tx.delete(definitionPins).where(and(ofOwner(o), isNull(definitionPins.approvedHash)));
  await tx.update(definitionPins).set({ current: null, currentHash: null }).where(ofOwner(o));
}

/** The definitions one user may have pinned in all (the platform keeps them for them): beyond, new ones are withheld. */
export const MAX_PINS_PER_USER = 5000;

/** The gateway's view of one owner's pins. */
export async function loadReview(db: Db, o: PinOwner): Promise<DefinitionReview> {
  const [[review], rows] = await Promise.all([
    db
      .select({ pinnedKinds: definitionReviews.pinnedKinds, warnOnly: definitionReviews.warnOnly })
      .from(definitionReviews)
      .where(reviewOf(o)),
    db
      .select({
        kind: definitionPins.kind,
        name: definitionPins.name,
        approvedHash: definitionPins.approvedHash,
        currentHash: definitionPins.currentHash,
        rejectedHash: definitionPins.rejectedHash,
      })
      .from(definitionPins)
      .where(ofOwner(o)),
  ]);
  if (!review) return DefinitionReview.NONE;
  return DefinitionReview.of(review.pinnedKinds, review.warnOnly, rows);
}

/**
 * A listing of one kind, as the server gave it. The kind's first listing pins every definition in
 * it; later ones record what changed (a new current definition, a new name) and, when `complete`
 * (every page), which names it left out. True when anything was written.
 */
export async function recordListing(
  db: Db,
  o: PinOwner,
  kind: DefinitionKind,
  listed: readonly Definition[],
  complete: boolean,
): Promise<boolean> {
  const defs = [...new Map(listed.map((d) => [d.name, d])).values()].slice(0, MAX_DEFINITIONS);
  return db.transaction(async (tx) => {
    await tx.insert(definitionReviews).values(own(o)).onConflictDoNothing();
    // One listing at a time per owner: two processes listing at once never both pin.
    const [review] = await tx
      .select({ pinnedKinds: definitionReviews.pinnedKinds })
      .from(definitionReviews)
      .where(reviewOf(o))
      .for("update");
    const now = new Date();
    // What this user may still pin (MAX_PINS_PER_USER in all); what is left over stays withheld.
    const [{ n } = { n: 0 }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(definitionPins)
      .where(eq(definitionPins.userId, o.userId));
    let room = MAX_PINS_PER_USER - n;
    if (!review!.pinnedKinds.includes(kind)) {
      const pinnedAlready = new Set(
        (
          await tx
            .select({ name: definitionPins.name })
            .from(definitionPins)
            .where(and(ofOwner(o), eq(definitionPins.kind, kind)))
        ).map((r) => r.name),
      );
      for (const d of defs) {
        if (!pinnedAlready.has(d.name) && room-- <= 0) continue;
        const def = jsonbSafe(d.def);
        await tx
          .insert(definitionPins)
          .values({ ...own(o), kind, name: d.name, approved: def, approvedHash: d.hash, current: def, currentHash: d.hash, changedAt: now })
          .onConflictDoUpdate({
            target: [definitionPins.userId, definitionPins.serverKind, definitionPins.serverRef, definitionPins.kind, definitionPins.name],
            set: { approved: def, approvedHash: d.hash, current: def, currentHash: d.hash, rejectedHash: null, changedAt: now },
          });
      }
      await tx
        .update(definitionReviews)
        .set({ pinnedKinds: sql`array_append(${definitionReviews.pinnedKinds}, ${kind})`, updatedAt: now })
        .where(reviewOf(o));
      return true;
    }
    const rows = await tx
      .select({ name: definitionPins.name, currentHash: definitionPins.currentHash })
      .from(definitionPins)
      .where(and(ofOwner(o), eq(definitionPins.kind, kind)));
    const known = new Map(rows.map((r) => [r.name, r.currentHash]));
    let wrote = false;
    for (const d of defs) {
      if (!known.has(d.name)) {
        if (known.size >= MAX_DEFINITIONS || room-- <= 0) continue;
        known.set(d.name, d.hash);
        await tx
          .insert(definitionPins)
          .values({ ...own(o), kind, name: d.name, current: jsonbSafe(d.def), currentHash: d.hash, changedAt: now })
          .onConflictDoNothing();
        wrote = true;
      } else if (known.get(d.name) !== d.hash) {
        await tx
          .update(definitionPins)
          .set({ current: jsonbSafe(d.def), currentHash: d.hash, changedAt: now })
          .where(and(ofOwner(o), eq(definitionPins.kind, kind), eq(definitionPins.name, d.name)));
        wrote = true;
      }
    }
    if (complete) {
      const listedNames = new Set(defs.map((d) => d.name));
      const gone = rows.filter((r) => r.currentHash !== null && !listedNames.has(r.name)).map((r) => r.name);
      if (gone.length) {
        await tx
          .update(definitionPins)
          .set({ current: null, currentHash: null, changedAt: now })
          .where(and(ofOwner(o), eq(definitionPins.kind, kind), inArray(definitionPins.name, gone)));
        wrote = true;
      }
    }
    return wrote;
  });
}

/** The listing a server gave when it started, each whole list recorded (the first pins). True when anything was written. */
export async function recordStartListing(db: Db, o: PinOwner, listing: Listing): Promise<boolean> {
  const lists: [DefinitionKind, unknown[], boolean][] = [
    ["tool", listing.tools, listing.complete.tools],
    ["prompt", listing.prompts, listing.complete.prompts],
    ["resource_template", listing.resourceTemplates, listing.complete.resourceTemplates],
  ];
  let wrote = false;
  for (const [kind, items, complete] of lists) {
    // A list the server refused or paged past the limit pins nothing: the gateway pins what clients are given.
    if (!complete) continue;
    const defs = items.map(definitionOf).filter((d): d is Definition => d !== undefined);
    if (await recordListing(db, o, kind, defs, true)) wrote = true;
  }
  return wrote;
}

/** The review shows at most this many changes at a time (each up to 64 KB twice); deciding shows the next. */
const MAX_REVIEW = 200;

/** What the owner sees: every listed definition that differs from the approved one. */
export async function reviewView(db: Db, o: PinOwner): Promise<DefinitionReviewView> {
  const [[review], rows] = await Promise.all([
    db
      .select({ pinnedKinds: definitionReviews.pinnedKinds, warnOnly: definitionReviews.warnOnly })
      .from(definitionReviews)
      .where(reviewOf(o)),
    db
      .select()
      .from(definitionPins)
      .where(
        and(
          ofOwner(o),
          isNotNull(definitionPins.currentHash),
          sql`${definitionPins.currentHash} is distinct from ${definitionPins.approvedHash}`,
        ),
      )
      .orderBy(asc(definitionPins.kind), asc(definitionPins.name))
      .limit(MAX_REVIEW),
  ]);
  const changes: DefinitionChange[] = rows.map((r) => ({
    kind: r.kind as DefinitionKind,
    name: r.name,
    status: r.currentHash === r.rejectedHash ? "rejected" : r.approvedHash === null ? "new" : "changed",
    approved: (r.approved as Record<string, unknown> | null) ?? null,
    current: r.current as Record<string, unknown>,
    hash: r.currentHash!,
    changed_at: r.changedAt.toISOString(),
  }));
  return { warn_only: review?.warnOnly ?? false, pinned: (review?.pinnedKinds.length ?? 0) > 0, changes };
}

export type DecisionOutcome = { ok: true } | { ok: false; why: "changedAgain" | "notFound" };

/** Ends a decision's transaction without writing anything. */
class Undecided extends Error {
  constructor(readonly why: "changedAgain" | "notFound") {
    super(why);
  }
}

/**
 * The owner approves (the current definition becomes the pinned one) or rejects (it stays
 * withheld, even in 'warn only') each named definition, all or none: each must still be the one
 * the owner saw (its hash).
 */
export async function decide(
  db: Db,
  o: PinOwner,
  decision: "approve" | "reject",
  items: readonly { kind: DefinitionKind; name: string; hash: string }[],
): Promise<DecisionOutcome> {
  try {
    await db.transaction(async (tx) => {
      for (const it of items) {
        const where = and(ofOwner(o), eq(definitionPins.kind, it.kind), eq(definitionPins.name, it.name));
        const [row] = await tx
          .select({ currentHash: definitionPins.currentHash, approvedHash: definitionPins.approvedHash })
          .from(definitionPins)
          .where(where)
          .for("update");
        if (!row || row.currentHash === null || row.currentHash === row.approvedHash) throw new Undecided("notFound");
        if (row.currentHash !== it.hash) throw new Undecided("changedAgain");
        if (decision === "approve")
          await tx
            .update(definitionPins)
            .set({ approved: sql`${definitionPins.current}`, approvedHash: it.hash, rejectedHash: null })
            .where(where);
        else await tx.update(definitionPins).set({ rejectedHash: it.hash }).where(where);
      }
    });
    return { ok: true };
  } catch (e) {
    if (e instanceof Undecided) return { ok: false, why: e.why };
    throw e;
  }
}

export async function setWarnOnly(db: Db, o: PinOwner, warnOnly: boolean): Promise<void> {
  await db
    .insert(definitionReviews)
    .values({ ...own(o), warnOnly })
    .onConflictDoUpdate({
      target: [definitionReviews.userId, definitionReviews.serverKind, definitionReviews.serverRef],
      set: { warnOnly, updatedAt: new Date() },
    });
}
