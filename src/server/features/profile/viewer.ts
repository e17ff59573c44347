import type { Db } from "../../db/client.js";
import type { Auth } from "../auth/auth.js";
import type { Viewer } from "../auth/viewer.js";
import { findProfile } from "./repo.js";

// Who is signed in, as pages and the API see them: the session's account and its profile.

/** The viewer behind a browser session cookie, or null (no cookie, no session, or no profile yet). */
export async function getViewer(auth: Pick<Auth, "api">, db: Db, headers: Headers): Promise<Viewer | null> {
  if (!headers.get("cookie")) return null;
  const s = await auth.api.getSession({ headers }).catch(() => null);
  if (!s) return null;
  const p = await findProfile(db, s.user.id);
  if (!p) return null;
  return {
    id: s.user.id,
    email: s.user.email,
    emailVerified: s.user.emailVerified,
    username: p.username,
    fullName: p.fullName,
    isAdmin: p.isAdmin,
  };
}
