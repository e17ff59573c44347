// What organisations read: the viewer's organisations and role, members with their usernames,
// invitations. The plugin writes these tables (features/auth/auth.ts); Switchboard only reads.
import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { invitation, member, organization, orgSettings, profiles, user } from "../../db/schema.js";

export type OrgRow = typeof organization.$inferSelect;

export async function orgBySlug(db: DbOrTx, slug: string): Promise<OrgRow | undefined> {
  const [o] = await db.select().from(organization).where(eq(organization.slug, slug.toLowerCase()));
  return o;
}

export async function orgById(db: DbOrTx, id: string): Promise<OrgRow | undefined> {
  const [o] = await db.select().from(organization).where(eq(organization.id, id));
  return o;
}

/** The person's role in the organisation, or null when they are not a member. */
export async function roleIn(db: DbOrTx, orgId: string, userId: string): Promise<string | null> {
  const [m] = await db
    .select({ role: member.role })
    .from(member)
    .where(and(eq(member.organizationId, orgId), eq(member.userId, userId)));
  return m?.role ?? null;
}

/** The organisations a person belongs to, with their role and the member count, oldest first. */
export async function orgsOf(db: DbOrTx, userId: string) {
  return db
    .select({
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      createdAt: organization.createdAt,
      role: member.role,
      members: sql<number>`(select count(*)::int from ${member} m2 where m2.organization_id = ${organization.id})`,
    })
    .from(member)
    .innerJoin(organization, eq(organization.id, member.organizationId))
    .where(eq(member.userId, userId))
    .orderBy(asc(member.createdAt));
}

export async function membersOf(db: DbOrTx, orgId: string) {
  return db
    .select({
      id: member.id,
      userId: member.userId,
      role: member.role,
      createdAt: member.createdAt,
      email: user.email,
      name: user.name,
      username: sql<string>`coalesce(${profiles.username}, '')`,
    })
    .from(member)
    .innerJoin(user, eq(user.id, member.userId))
    .leftJoin(profiles, eq(profiles.id, member.userId))
    .where(eq(member.organizationId, orgId))
    .orderBy(asc(member.createdAt));
}

export async function memberById(db: DbOrTx, orgId: string, memberId: string) {
  const [m] = await db
    .select({ id: member.id, userId: member.userId, role: member.role, username: sql<string>`coalesce(${profiles.username}, '')` })
    .from(member)
    .leftJoin(profiles, eq(profiles.id, member.userId))
    .where(and(eq(member.organizationId, orgId), eq(member.id, memberId)));
  return m;
}

/** Pending invitations that have not expired, newest first. */
export async function pendingInvitations(db: DbOrTx, orgId: string) {
  return db
    .select({
      id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      status: invitation.status,
      expiresAt: invitation.expiresAt,
      createdAt: invitation.createdAt,
      inviter: sql<string>`coalesce(${profiles.username}, '')`,
    })
    .from(invitation)
    .leftJoin(profiles, eq(profiles.id, invitation.inviterId))
    .where(and(eq(invitation.organizationId, orgId), eq(invitation.status, "pending"), gt(invitation.expiresAt, new Date())))
    .orderBy(desc(invitation.createdAt));
}

export async function invitationById(db: DbOrTx, id: string) {
  const [i] = await db
    .select({
      id: invitation.id,
      organizationId: invitation.organizationId,
      email: invitation.email,
      role: invitation.role,
      status: invitation.status,
      expiresAt: invitation.expiresAt,
      inviter: sql<string>`coalesce(${profiles.fullName}, ${profiles.username}, '')`,
      orgName: organization.name,
      orgSlug: organization.slug,
    })
    .from(invitation)
    .innerJoin(organization, eq(organization.id, invitation.organizationId))
    .leftJoin(profiles, eq(profiles.id, invitation.inviterId))
    .where(eq(invitation.id, id));
  return i;
}

/** Whether a username (any case) is some person's: an organisation's slug may not be one. */
export async function isUsername(db: DbOrTx, name: string): Promise<boolean> {
  const [p] = await db
    .select({ id: profiles.id })
    .from(profiles)
    .where(sql`lower(${profiles.username}) = lower(${name})`)
    .limit(1);
  return Boolean(p);
}

/** How many deployments, connections and toolsets the organisation's account holds (features/orgs/accounts.ts). */
export async function heldByAccount(db: DbOrTx, accountId: string): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`select count(*)::int as n from deployments where user_id = ${accountId}`);
  return r.rows[0]?.n ?? 0;
}

/** Deletes an organisation with its members and invitations (they cascade). */
export async function deleteOrg(db: DbOrTx, id: string): Promise<void> {
  await db.delete(organization).where(eq(organization.id, id));
}

/** Whether the organisation lets its members deploy and change its deployments (off until an admin turns it on). */
export async function membersDeploy(db: DbOrTx, orgId: string): Promise<boolean> {
  const [s] = await db.select({ on: orgSettings.membersDeploy }).from(orgSettings).where(eq(orgSettings.organizationId, orgId));
  return s?.on ?? false;
}

export async function saveMembersDeploy(db: DbOrTx, orgId: string, on: boolean): Promise<void> {
  await db
    .insert(orgSettings)
    .values({ organizationId: orgId, membersDeploy: on })
    .onConflictDoUpdate({ target: orgSettings.organizationId, set: { membersDeploy: on, updatedAt: new Date() } });
}
