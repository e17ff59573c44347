import type { Db } from "../../db/client.js";
import { findProfile } from "../profile/repo.js";
import type { Auth } from "./auth.js";

/** The signed-in person as pages and APIs see them. */
export interface Viewer {
  id: string;
  email: string;
  emailVerified: boolean;
  username: string;
  fullName: string;
  isAdmin: boolean;
  /** Signed in with an API key (Authorization: Bearer) rather than a browser session. */
  viaApiKey?: boolean;
}

export async function getViewer(auth: Auth, db: Db, headers: Headers): Promise<Viewer | null> {
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
