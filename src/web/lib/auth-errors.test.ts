import { describe, expect, it } from "vitest";
import { AUTH_TEXT } from "../../shared/auth";
import { loginErrorText, registerErrorText } from "./auth-errors";

describe("auth error texts", () => {
  it.each([
    [{ ok: false as const, status: 0, timedOut: true }, AUTH_TEXT.loginTimeout],
    [{ ok: false as const, status: 401, code: "INVALID_EMAIL_OR_PASSWORD" }, AUTH_TEXT.invalidCredentials],
    [{ ok: false as const, status: 403, code: "EMAIL_NOT_VERIFIED" }, AUTH_TEXT.emailNotConfirmed],
    [{ ok: false as const, status: 500 }, AUTH_TEXT.loginFailed],
    [{ ok: false as const, status: 0, network: true }, AUTH_TEXT.loginFailed],
    [{ ok: false as const, status: 429, retryAfter: 42 }, "Too many attempts. Please try again in 42 seconds."],
  ])("login %j", (r, text) => expect(loginErrorText(r)).toBe(text));

  it.each([
    [{ ok: false as const, status: 0, timedOut: true }, AUTH_TEXT.registerTimeout],
    [{ ok: false as const, status: 422, code: "USER_ALREADY_EXISTS" }, AUTH_TEXT.alreadyRegistered],
    [{ ok: false as const, status: 400, code: "INVALID_EMAIL" }, AUTH_TEXT.invalidEmail],
    [{ ok: false as const, status: 400, code: "PASSWORD_TOO_SHORT" }, AUTH_TEXT.passwordTooShort],
    [{ ok: false as const, status: 502 }, AUTH_TEXT.registerFailed],
  ])("register %j", (r, text) => expect(registerErrorText(r)).toBe(text));
});
