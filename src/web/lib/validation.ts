import type { ZodError } from "zod";

/**
 * The message a form shows for a failed parse of a shared schema: the first of `preferred` that
 * occurs (the checks the form has always made first, in its order), else the first issue's
 * message, the same text the API answers with for that body.
 */
export function formMessage(error: ZodError, preferred: readonly string[] = []): string {
  const messages = error.issues.map((i) => i.message);
  return preferred.find((m) => messages.includes(m)) ?? messages[0] ?? "Invalid input";
}
