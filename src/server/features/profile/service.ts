import type { Db } from "../../db/client.js";
import { APIError } from "better-auth/api";
import { AppError } from "../../errors.js";
import { PROFILE_TEXT } from "~/shared/auth.js";
import type { ProfileUpdate } from "~/shared/profile.js";
import type { Auth } from "../auth/auth.js";
import type { Viewer } from "../auth/viewer.js";
import { withSetCookies } from "../auth/session.js";
import type { KeyRevocations } from "../api-keys/revocations.js";
import { deleteUserCascade, findProfile, updateUsername, usernameTaken, type Profile } from "./repo.js";

export interface UpdateResult {
  profile: Profile;
  message: string;
  emailChangePending: string | null;
  /** Set-Cookie headers from better-auth (a password change renews the session). */
  setCookies: string[];
}

function authMessage(e: unknown): string | undefined {
  return e instanceof APIError ? (e.body as { code?: string } | undefined)?.code : undefined;
}

export async function updateProfile(
  deps: { auth: Auth; db: Db },
  viewer: Viewer,
  id: string,
  changes: ProfileUpdate,
  headers: Headers,
): Promise<UpdateResult> {
  if (viewer.id !== id) throw new AppError("forbidden", "You can only update your own profile");
  const username = changes.username !== undefined && changes.username !== viewer.username ? changes.username : undefined;
  const email = changes.email !== undefined && changes.email.toLowerCase() !== viewer.email.toLowerCase() ? changes.email : undefined;
  if (username === undefined && email === undefined && !changes.password) throw new AppError("validation_failed", PROFILE_TEXT.noChanges);
  if (username !== undefined && (await usernameTaken(deps.db, username, id))) throw new AppError("conflict", PROFILE_TEXT.usernameTaken);

  // The password first (it also proves who is asking): a wrong one changes nothing and sends no
  // mail. The confirmation mail goes out after it, with the session that change renewed (an
  // address another account holds gets the same answer and no mail: that is not told).
  const setCookies: string[] = [];
  if (changes.password) {
    try {
      const r = await deps.auth.api.changePassword({
        headers,
        body: { currentPassword: changes.currentPassword!, newPassword: changes.password, revokeOtherSessions: true },
        returnHeaders: true,
      });
      setCookies.push(...(r.headers.getSetCookie?.() ?? []));
    } catch (e) {
      const code = authMessage(e);
      if (code === "INVALID_PASSWORD") throw new AppError("validation_failed", PROFILE_TEXT.wrongCurrent);
      if (code === "CREDENTIAL_ACCOUNT_NOT_FOUND")
        throw new AppError("validation_failed", "This account signs in with GitHub and has no password to change");
      throw e;
    }
  }
  if (email !== undefined) {
    const renewed = new Headers(headers);
    if (setCookies.length) renewed.set("cookie", withSetCookies(headers.get("cookie") ?? "", setCookies));
    try {
      await deps.auth.api.changeEmail({ headers: renewed, body: { newEmail: email, callbackURL: "/profile" } });
    } catch (e) {
      const code = authMessage(e);
      if (code === "COULDNT_UPDATE_YOUR_EMAIL" || code === "USER_ALREADY_EXISTS" || code === "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL")
        throw new AppError("conflict", PROFILE_TEXT.emailTaken);
      throw e;
    }
  }
  if (username !== undefined) {
    try {
      await updateUsername(deps.db, id, username);
    } catch (e) {
      if ((e as { cause?: { code?: string } }).cause?.code === "23505") throw new AppError("conflict", PROFILE_TEXT.usernameTaken);
      throw e;
    }
  }
  const profile = (await findProfile(deps.db, id))!;
  return {
    profile,
    message: email ? `${PROFILE_TEXT.updated}. ${PROFILE_TEXT.emailChangeSent(email)}` : PROFILE_TEXT.updated,
    emailChangePending: email ?? null,
    setCookies,
  };
}

export interface DeleteAccountDeps {
  db: Db;
  /** told after the account is gone, so its API keys stop working everywhere at once */
  revocations: KeyRevocations;
  /** runs first: ends the subscription and stops running deployments */
  beforeDelete?: (userId: string) => Promise<void>;
}

export async function deleteAccount(deps: DeleteAccountDeps, viewer: Viewer, id: string, confirmEmail: string): Promise<void> {
  if (viewer.id !== id) throw new AppError("forbidden", "You can only delete your own account");
  if (confirmEmail.trim().toLowerCase() !== viewer.email.toLowerCase())
    throw new AppError("validation_failed", PROFILE_TEXT.deleteConfirmMismatch);
  // Running deployments are stopped first; API keys, owned servers and deployment rows go with the user.
  await deps.beforeDelete?.(id);
  await deleteUserCascade(deps.db, id);
  deps.revocations.revoked();
}

export function profileJson(p: Profile) {
  return {
    id: p.id,
    email: p.email,
    username: p.username,
    full_name: p.fullName,
    is_admin: p.isAdmin,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
