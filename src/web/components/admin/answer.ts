// What the admin page's forms post as `intent`, and the action's answer to one of them.

/** What a card's buttons post as `intent`. */
export type AdminIntent = "approve" | "reject" | "unapprove" | "accept-tools" | "check" | "sync" | "take-upstream" | "edit";
/** The action's answer to a card: which entry, and why it failed if it did. */
export type AdminAnswer = { id: string; error?: string };
