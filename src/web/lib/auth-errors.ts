import { AUTH_TEXT } from "../../shared/auth";
import type { ApiResult } from "./api";

type Failure = Extract<ApiResult<unknown>, { ok: false }>;

/** Which text a failed sign-in shows (docs/product.md#sign-in). */
export function loginErrorText(r: Failure): string {
  if (r.timedOut) return AUTH_TEXT.loginTimeout;
  if (r.code === "INVALID_EMAIL_OR_PASSWORD") return AUTH_TEXT.invalidCredentials;
  if (r.code === "EMAIL_NOT_VERIFIED") return AUTH_TEXT.emailNotConfirmed;
  if (r.status === 429) return AUTH_TEXT.tooManyAttempts(r.retryAfter ?? 60);
  return AUTH_TEXT.loginFailed;
}

/** Which text a failed sign-up shows (docs/product.md#sign-up-and-confirmation). */
export function registerErrorText(r: Failure): string {
  if (r.timedOut) return AUTH_TEXT.registerTimeout;
  if (r.code === "USER_ALREADY_EXISTS" || r.code === "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL") return AUTH_TEXT.alreadyRegistered;
  if (r.code === "INVALID_EMAIL") return AUTH_TEXT.invalidEmail;
  if (r.code === "PASSWORD_TOO_SHORT") return AUTH_TEXT.passwordTooShort;
  if (r.code === "PASSWORD_TOO_LONG") return AUTH_TEXT.passwordTooLong;
  if (r.status === 429) return AUTH_TEXT.tooManyAttempts(r.retryAfter ?? 60);
  return AUTH_TEXT.registerFailed;
}
