import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { organization, profiles, user } from "../../db/schema.js";

export type Profile = typeof profiles.$inferSelect;

export async function findProfile(db: Db, id: string): Promise<Profile | undefined> {
  const [p] = await db.select().from(profiles).where(eq(profiles.id, id));
  return p;
}

/** Inserts the profile unless one exists; false when the username was taken (caller retries). */
export async function insertProfile(
  db: Db,
  p: { id: string; email: string; username: string; fullName: string; isAdmin: boolean },
): Promise<"created" | "exists" | "username_taken"> {
  // One namespace with organisations (features/orgs): `acme/weather` names one owner.
  if (await isOrgSlug(db, p.username)) return "username_taken";
  try {
    const rows = await db.insert(profiles).values(p).onConflictDoNothing({ target: profiles.id }).returning({ id: profiles.id });
    return rows.length ? "created" : "exists";
  } catch (e) {
    if (
      (e as { code?: string; cause?: { code?: string } }).code === "23505" ||
      (e as { cause?: { code?: string } }).cause?.code === "23505"
    )
      return "username_taken";
    throw e;
  }
}

export async function usernameTaken(db: Db, username: string, exceptId?: string): Promise<boolean> {
  const cond = exceptId
    ? and(sql`lower(${profiles.username}) = lower(${username})`, ne(profiles.id, exceptId))
    : sql`lower(${profiles.username}) = lower(${username})`;
  const rows = await db.select({ id: profiles.id }).from(profiles).where(cond).limit(1);
  return rows.length > 0 || (await isOrgSlug(db, username));
}

/** An organisation's slug (any case): not free as a username. */
async function isOrgSlug(db: Db, name: string): Promise<boolean> {
  const rows = await db
    .select({ id: organization.id })
    .from(organization)
    .where(sql`lower(${organization.slug}) = lower(${name})`)
    .limit(1);
  return rows.length > 0;
}

export async function updateUsername(db: Db, id: string, username: string): Promise<void> {
  await db.update(profiles).set({ username, updatedAt: new Date() }).where(eq(profiles.id, id));
}

/** False when the account has no profile yet. */
export async function setAdmin(db: Db, id: string, isAdmin: boolean): Promise<boolean> {
  const rows = await db.update(profiles).set({ isAdmin, updatedAt: new Date() }).where(eq(profiles.id, id)).returning({ id: profiles.id });
  return rows.length > 0;
}

export async function listAdmins(db: Db): Promise<Array<{ email: string; username: string }>> {
  return db.select({ email: profiles.email, username: profiles.username }).from(profiles).where(eq(profiles.isAdmin, true));
}

/** A confirmed change of address is mirrored into the profile. */
export async function updateProfileEmail(db: Db, id: string, email: string): Promise<void> {
  await db.update(profiles).set({ email, updatedAt: new Date() }).where(eq(profiles.id, id));
}

/** Deletes the account and everything that hangs off it (sessions, accounts, profile cascade). */
export async function deleteUserCascade(db: Db, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.delete(profiles).where(eq(profiles.id, id));
    const rows = await tx.delete(user).where(eq(user.id, id)).returning({ id: user.id });
    return rows.length > 0;
  });
}
