import { APIError } from "better-auth/api";
import type { Db } from "../../db/client.js";
import type { Auth } from "./auth.js";
import { claimToken, releaseToken } from "./repo.js";

export type ConfirmOutcome = "confirmed" | "used" | "expired" | "invalid";

/** Follows a confirmation link: works once, and not after 24 hours. */
export async function confirmEmail(auth: Auth, db: Db, token: string | null): Promise<ConfirmOutcome> {
  if (!token || token.length > 4096) return "invalid";
  if (!(await claimToken(db, token))) return "used";
  try {
    await auth.api.verifyEmail({ query: { token } });
    return "confirmed";
  } catch (e) {
    // A link that did not work stays unclaimed so the message stays truthful on a retry.
    await releaseToken(db, token);
    const code = e instanceof APIError ? (e.body as { code?: string } | undefined)?.code : undefined;
    if (code === "TOKEN_EXPIRED") return "expired";
    return "invalid";
  }
}
