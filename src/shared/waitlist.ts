import { z } from "zod";

// The waitlist texts (docs/product.md#waitlist): used verbatim by the page and the API.
export const WAITLIST_TEXT = {
  headline: "The Next Frontier of Workflow Automation is Coming",
  button: "Join Waitlist",
  busy: "Joining...",
  success: "Thanks for joining! We'll keep you updated.",
  fallbackError: "Oops! Something went wrong. Please try again.",
  networkError: "Network error. Please try again.",
  required: "Email is required",
  invalid: "Please enter a valid email address",
} as const;

export const waitlistRequest = z.object({
  email: z
    .string({ error: WAITLIST_TEXT.required })
    .trim()
    .min(1, WAITLIST_TEXT.required)
    .max(254, WAITLIST_TEXT.invalid)
    .pipe(z.email({ error: WAITLIST_TEXT.invalid })),
});

export const waitlistResponse = z.object({ message: z.string(), created: z.boolean() });
