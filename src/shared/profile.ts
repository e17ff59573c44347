import { z } from "zod";
import { MAX_PASSWORD, MIN_PASSWORD, PROFILE_TEXT } from "./auth.js";

// PUT /api/users/{id}: only the changed fields are sent (docs/product.md#profile).
export const profileUpdate = z
  .object({
    username: z
      .string()
      .trim()
      .min(1, PROFILE_TEXT.usernameRequired)
      .regex(/^[A-Za-z0-9._-]{3,39}$/, PROFILE_TEXT.usernameFormat)
      .optional(),
    email: z
      .string()
      .trim()
      .min(1, PROFILE_TEXT.emailRequired)
      .pipe(z.email({ error: "Please enter a valid email address." }))
      .optional(),
    currentPassword: z.string().max(MAX_PASSWORD).optional(),
    password: z
      .string()
      .min(MIN_PASSWORD, `Password must be at least ${MIN_PASSWORD} characters long`)
      .max(MAX_PASSWORD, `Password must be at most ${MAX_PASSWORD} characters long`)
      .optional(),
  })
  .strict()
  .refine((b) => !b.password || Boolean(b.currentPassword), { message: PROFILE_TEXT.currentRequired });

export type ProfileUpdate = z.infer<typeof profileUpdate>;

export const profileView = z.object({
  id: z.string(),
  email: z.string(),
  username: z.string(),
  full_name: z.string(),
  is_admin: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const deleteAccountRequest = z.object({ confirmEmail: z.string().trim().min(1, PROFILE_TEXT.deleteConfirmMismatch) });

/**
 * The profile form as posted: both names required, and a new password needs the current one and
 * the same text twice. Its action then sends only what changed, checked by `profileUpdate`.
 */
export const profileForm = z
  .object({
    username: z.string({ error: PROFILE_TEXT.usernameRequired }).trim().min(1, PROFILE_TEXT.usernameRequired).max(100),
    email: z.string({ error: PROFILE_TEXT.emailRequired }).trim().min(1, PROFILE_TEXT.emailRequired).max(320),
    currentPassword: z.string().max(MAX_PASSWORD).optional(),
    password: z.string().max(MAX_PASSWORD, `Password must be at most ${MAX_PASSWORD} characters long`).optional(),
    confirm: z.string().max(MAX_PASSWORD).optional(),
  })
  .superRefine((v, ctx) => {
    if (!v.password && !v.confirm) return;
    if (!v.currentPassword) ctx.addIssue({ code: "custom", path: ["currentPassword"], message: PROFILE_TEXT.currentRequired });
    if (v.password !== v.confirm) ctx.addIssue({ code: "custom", path: ["confirm"], message: PROFILE_TEXT.mismatch });
  });
