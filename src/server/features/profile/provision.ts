import type { Db } from "../../db/client.js";
import type { AccountHooks } from "../auth/auth.js";
import { findProfile, insertProfile, setAdmin, updateProfileEmail } from "./repo.js";

// Profile rows for accounts: created on the first session and kept in step with ADMIN_EMAILS.
// The sign-in hooks (auth/auth.ts) call them through accountHooks(), which the app gives auth.

/** What an account's life means for its profile: auth's AccountHooks. */
export function accountHooks(db: Db, adminEmails: readonly string[]): AccountHooks {
  return {
    created: (u) => ensureProfile(db, u, adminEmails),
    emailChanged: (id, email) => updateProfileEmail(db, id, email),
    signingIn: async (u) => {
      await ensureProfile(db, u, adminEmails);
      await syncAdminFlag(db, u.id, u.email, adminEmails);
    },
  };
}

const USERNAME_RE = /^[A-Za-z0-9._-]{3,39}$/;

export function isValidUsername(u: string): boolean {
  return USERNAME_RE.test(u);
}

/** The username is the part of the e-mail address before '@', made safe (and unique by the caller). */
export function usernameBase(email: string): string {
  const local = (email.split("@")[0] ?? "").toLowerCase().replace(/[^a-z0-9._-]/g, "");
  const base = local.replace(/^[._-]+|[._-]+$/g, "");
  return (base.length >= 3 ? base : `${base}user`).slice(0, 32);
}

/** Creates the profile on first sign-in; full_name from provider metadata or the username. */
export async function ensureProfile(
  db: Db,
  u: { id: string; email: string; name?: string | null },
  adminEmails: readonly string[],
): Promise<void> {
  if (await findProfile(db, u.id)) return;
  const base = usernameBase(u.email);
  const isAdmin = adminEmails.includes(u.email.toLowerCase());
  for (let n = 1; n < 1000; n++) {
    const username = n === 1 ? base : `${base}-${n}`;
    const fullName = u.name && u.name !== u.email && u.name.trim() ? u.name.trim() : username;
    const r = await insertProfile(db, { id: u.id, email: u.email, username, fullName, isAdmin });
    if (r !== "username_taken") return;
  }
  throw new Error("could not find a free username");
}

/** ADMIN_EMAILS makes those accounts admins when they sign in. */
export async function syncAdminFlag(db: Db, id: string, email: string, adminEmails: readonly string[]): Promise<void> {
  if (!adminEmails.includes(email.toLowerCase())) return;
  const p = await findProfile(db, id);
  if (p && !p.isAdmin) await setAdmin(db, id, true);
}
