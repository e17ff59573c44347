import { z } from "zod";

// Every account text (docs/product.md#accounts), verbatim, in one place.
export const AUTH_TEXT = {
  loginTitle: (site: string) => `Log in to ${site}`,
  registerTitle: (site: string) => `Join ${site}`,
  continueWithGitHub: "Continue with GitHub",
  githubNotConfigured: "GitHub sign-in is not configured on this server",
  forgotPassword: "Forgot password?",
  signUp: "Sign up",
  loggingIn: "Logging in...",
  logIn: "Log in",
  creatingAccount: "Creating account...",
  createAccount: "Create account",
  passwordHint: "Must be at least 8 characters",
  checkEmail: "Check your email",
  checkEmailText: "We've sent you a confirmation link. Please check your email to verify your account.",
  returnToLogin: "Return to login",
  signedInAs: "Signed in as",
  yourProfile: "Your Profile",
  signOut: "Sign out",
  // validation
  bothRequired: "Please enter both email and password",
  passwordTooShort: "Password must be at least 8 characters long",
  passwordTooLong: "Password must be at most 128 characters long",
  // login errors
  invalidCredentials: "Invalid email or password. Please try again.",
  loginTimeout: "Login request timed out. Please check your internet connection and try again.",
  emailNotConfirmed: "Please confirm your email address before logging in. Check your inbox for a confirmation email.",
  loginFailed: "Failed to log in. Please check your credentials and try again.",
  githubLoginFailed: "Failed to log in with GitHub. Please try again.",
  // register errors
  alreadyRegistered: "This email is already registered. Please log in instead.",
  invalidEmail: "Please enter a valid email address.",
  registerTimeout: "Request timed out. Please check your internet connection and try again.",
  registerFailed: "Failed to create account. Please try again.",
  githubRegisterFailed: "Failed to register with GitHub. Please try again.",
  tooManyAttempts: (seconds: number) => `Too many attempts. Please try again in ${seconds} seconds.`,
} as const;

export const PROFILE_TEXT = {
  save: "Save Changes",
  saving: "Saving...",
  noChanges: "No changes to save",
  currentRequired: "Current password is required to set a new password",
  mismatch: "New passwords do not match",
  updated: "Profile updated successfully",
  failed: "Failed to update profile. Please try again later.",
  notAuthenticated: "User not authenticated",
  usernameRequired: "Username is required",
  emailRequired: "Email Address is required",
  usernameTaken: "This username is already taken",
  usernameFormat: "Username may contain only letters, numbers, dots, hyphens and underscores (3 to 39 characters)",
  emailTaken: "This email is already registered to another account",
  wrongCurrent: "Current password is incorrect",
  emailChangeSent: (email: string) => `We've sent a confirmation link to ${email}. Your email address changes when you confirm it.`,
  deleteConfirmMismatch: "Type your email address exactly to confirm",
  deleted: "Your account has been deleted",
} as const;

export const LOGIN_TIMEOUT_MS = 20_000;
export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 128;

export const FORGOT_TEXT = {
  title: "Reset your password",
  intro: "Enter the email address of your account and we'll send you a link to choose a new password.",
  send: "Send reset link",
  sending: "Sending...",
  sent: (email: string) => `If an account exists for ${email}, we've sent a link to reset its password. The link works once, for 1 hour.`,
  required: "Please enter your email address",
  failed: "Failed to send the reset link. Please try again.",
} as const;

export const RESET_TEXT = {
  title: "Choose a new password",
  save: "Set new password",
  saving: "Saving...",
  done: "Your password has been reset. Log in with your new password.",
  invalid: "This reset link is invalid, expired or already used. Request a new one.",
  failed: "Failed to reset your password. Please try again.",
} as const;

// The account forms' rules (their route actions parse posts with these; the pages check them first).
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Log in: e-mail and password, both required (one message for either missing). */
export const loginForm = z
  .object({ email: z.string().trim().max(320).optional(), password: z.string().max(MAX_PASSWORD, AUTH_TEXT.passwordTooLong).optional() })
  .superRefine((v, ctx) => {
    if (!v.email || !v.password) ctx.addIssue({ code: "custom", path: [], message: AUTH_TEXT.bothRequired });
  });

/** Register: both required, a password of 8 to 128 characters, an address that looks like one. */
export const registerForm = z
  .object({ email: z.string().trim().max(320).optional(), password: z.string().optional() })
  .superRefine((v, ctx) => {
    if (!v.email || !v.password) return ctx.addIssue({ code: "custom", path: [], message: AUTH_TEXT.bothRequired });
    if (v.password.length < MIN_PASSWORD) ctx.addIssue({ code: "custom", path: ["password"], message: AUTH_TEXT.passwordTooShort });
    else if (v.password.length > MAX_PASSWORD) ctx.addIssue({ code: "custom", path: ["password"], message: AUTH_TEXT.passwordTooLong });
    if (!EMAIL_SHAPE.test(v.email)) ctx.addIssue({ code: "custom", path: ["email"], message: AUTH_TEXT.invalidEmail });
  });

export const forgotForm = z.object({ email: z.string({ error: FORGOT_TEXT.required }).trim().min(1, FORGOT_TEXT.required).max(320) });

/** A new password twice, with the reset link's token. */
export const resetForm = z
  .object({
    token: z.string().max(500).optional(),
    password: z
      .string({ error: AUTH_TEXT.passwordTooShort })
      .min(MIN_PASSWORD, AUTH_TEXT.passwordTooShort)
      .max(MAX_PASSWORD, AUTH_TEXT.passwordTooLong),
    confirm: z.string().max(MAX_PASSWORD).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.password !== (v.confirm ?? "")) ctx.addIssue({ code: "custom", path: ["confirm"], message: PROFILE_TEXT.mismatch });
  });

/**
 * Only same-site paths are accepted as a place to go after sign-in (no open redirects): the login
 * page's `redirect`, carried through sign-up and the confirmation e-mail's link.
 */
export function safeRedirect(target: string | null | undefined, fallback = "/"): string {
  if (!target) return fallback;
  const t = target.startsWith("/") ? target : `/${target}`;
  if (t.startsWith("//") || t.includes("\\") || !/^\/[\w\-./?=&%]*$/.test(t)) return fallback;
  return t;
}

/** `page` (/login, /register, /verify-email?token=...) carrying `to` on when it is a same-site path other than the home page. */
export function withRedirect(page: string, to: string | null | undefined): string {
  const back = safeRedirect(to, "/");
  return back === "/" ? page : `${page}${page.includes("?") ? "&" : "?"}redirect=${encodeURIComponent(back)}`;
}

/** `/login`, going on to `to` afterwards. */
export const loginPath = (to: string | null | undefined) => withRedirect("/login", to);
