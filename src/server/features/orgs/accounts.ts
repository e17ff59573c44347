import { sql } from "drizzle-orm";
import { ORG_TEXT } from "~/shared/orgs.js";
import type { DbOrTx } from "../../db/client.js";
import { AppError } from "../../errors.js";
import { membersDeploy, orgById, orgBySlug, orgsOf, roleIn, type OrgRow } from "./repo.js";

// What an organisation owns (docs/decisions/025-organisations.md, "What an organisation owns"): its
// deployments are held by the organisation's own account, a `user` row nobody signs in as (no
// password, no provider, an e-mail without '@'). Everything keyed by an owner (a deployment's
// address, its pins, the plan that counts it, the subscription that pays for it) then works for an
// organisation as it does for a person. People reach what it owns through their membership:
// `reaches()` says who may do what, `payingAs()` who pays.

/** An organisation's account id: this prefix and the organisation's id. better-auth's ids are [A-Za-z0-9], so no person's starts so. */
export const ORG_ACCOUNT_PREFIX = "org_";

export const orgAccountId = (orgId: string) => `${ORG_ACCOUNT_PREFIX}${orgId}`;

/** The organisation whose account `ownerId` is, or undefined for a person's (or the platform's) account. */
export function orgOfAccount(ownerId: string): string | undefined {
  return ownerId.startsWith(ORG_ACCOUNT_PREFIX) ? ownerId.slice(ORG_ACCOUNT_PREFIX.length) : undefined;
}

/** The organisation's account, made at its first deployment (idempotent). */
export async function ensureOrgAccount(db: DbOrTx, org: Pick<OrgRow, "id" | "name">): Promise<string> {
  const id = orgAccountId(org.id);
  await db.execute(
    sql`insert into "user" (id, name, email, email_verified) values (${id}, ${org.name}, ${id}, true) on conflict (id) do nothing`,
  );
  return id;
}

/** The organisation's account goes (its deployments' rows, addresses and pins cascade): after its deployments were stopped. */
export async function dropOrgAccount(db: DbOrTx, orgId: string): Promise<void> {
  await db.execute(sql`delete from "user" where id = ${orgAccountId(orgId)}`);
}

/** An organisation as a deployment's view names it: its slug and name, the viewer's role, and whether they may change what it owns. */
export interface OrgReach {
  slug: string;
  name: string;
  role: string;
  manage: boolean;
}

/** What a person does with something an owner holds: use it (connect, read its page) or manage it (deploy, stop, keys, settings). */
export type Reach = "use" | "manage";

/** Whether a role manages what the organisation owns: owners and admins do; members where the organisation lets them. */
async function manages(db: DbOrTx, orgId: string, role: string | null): Promise<boolean> {
  if (role === "owner" || role === "admin") return true;
  return role === "member" && (await membersDeploy(db, orgId));
}

/**
 * Whether `userId` may `reach` what `ownerId` holds: their own, or their organisation's with the role
 * it needs. Anything else (another person's, an organisation they are not in) is no.
 */
export async function reaches(db: DbOrTx, userId: string, ownerId: string, reach: Reach): Promise<boolean> {
  if (userId === ownerId) return true;
  const orgId = orgOfAccount(ownerId);
  if (!orgId) return false;
  const role = await roleIn(db, orgId, userId);
  if (role === null) return false;
  return reach === "use" || manages(db, orgId, role);
}

/** The organisation `slug` names with the person's role in it and whether they manage what it owns; null when they are not in it (or it does not exist). */
export async function membershipOf(db: DbOrTx, userId: string, slug: string): Promise<{ org: OrgRow; reach: OrgReach } | null> {
  const org = await orgBySlug(db, slug);
  const role = org ? await roleIn(db, org.id, userId) : null;
  if (!org || role === null) return null;
  return { org, reach: { slug: org.slug, name: org.name, role, manage: await manages(db, org.id, role) } };
}

/** Who a new deployment belongs to: the viewer, or the organisation `slug` names when the viewer may deploy for it. */
export async function deployingOwner(
  db: DbOrTx,
  viewer: { id: string },
  slug: string | null | undefined,
): Promise<{ id: string; org: OrgReach | null }> {
  if (!slug) return { id: viewer.id, org: null };
  const m = await membershipOf(db, viewer.id, slug);
  // Outside it, an organisation is not found (its existence is not revealed).
  if (!m) throw new AppError("not_found", ORG_TEXT.notFound);
  if (!m.reach.manage) throw new AppError("forbidden", ORG_TEXT.notAllowedDeploy);
  return { id: await ensureOrgAccount(db, m.org), org: m.reach };
}

/** The accounts of the person's organisations, with each organisation's slug, name and the person's role. */
export async function orgsReached(db: DbOrTx, userId: string): Promise<Map<string, OrgReach>> {
  const rows = await orgsOf(db, userId);
  const views = await Promise.all(
    rows.map(
      async (o) => [orgAccountId(o.id), { slug: o.slug, name: o.name, role: o.role, manage: await manages(db, o.id, o.role) }] as const,
    ),
  );
  return new Map(views);
}

/** The organisation an owner id is, with the person's role in it, as a deployment's view names it (null: a person's own, or none of theirs). */
export async function orgViewOf(db: DbOrTx, userId: string, ownerId: string): Promise<OrgReach | null> {
  const orgId = orgOfAccount(ownerId);
  if (!orgId) return null;
  const [org, role] = await Promise.all([orgById(db, orgId), roleIn(db, orgId, userId)]);
  return org && role ? { slug: org.slug, name: org.name, role, manage: await manages(db, orgId, role) } : null;
}

/**
 * Who pays: the viewer, or the organisation `slug` names, whose owners alone buy and cancel its
 * plan (admins and members are refused; someone outside it is told it is not found).
 */
export async function payingAs<V extends { id: string }>(db: DbOrTx, viewer: V, slug: string | null | undefined): Promise<V> {
  if (!slug) return viewer;
  const org = await orgBySlug(db, slug);
  const role = org ? await roleIn(db, org.id, viewer.id) : null;
  if (!org || role === null) throw new AppError("not_found", ORG_TEXT.notFound);
  if (role !== "owner") throw new AppError("forbidden", ORG_TEXT.ownersPay);
  return { ...viewer, id: await ensureOrgAccount(db, org) };
}

/** Whether `userId` may act on the plan of `payerId`: their own, or an organisation's they own. */
export async function paysFor(db: DbOrTx, userId: string, payerId: string): Promise<boolean> {
  if (userId === payerId) return true;
  const orgId = orgOfAccount(payerId);
  return orgId !== undefined && (await roleIn(db, orgId, userId)) === "owner";
}

/** Where a payer's plan is shown: /subscription for a person, the organisation's page for one. */
export async function planPage(db: DbOrTx, payerId: string): Promise<string> {
  const orgId = orgOfAccount(payerId);
  const org = orgId ? await orgById(db, orgId) : undefined;
  return org ? `/orgs/${org.slug}` : "/subscription";
}
