import { z } from "zod";

// Pinned definitions (docs/gateway.md#pinned-definitions): what the owner of a deployment sees and
// decides about its tools, prompts and resource templates that changed since they were approved.

export const DEFINITION_KINDS = ["tool", "prompt", "resource_template"] as const;
export type DefinitionKind = (typeof DEFINITION_KINDS)[number];

/** The listing method of each kind, and the field of its result that holds the list. */
export const LISTINGS: Record<DefinitionKind, { method: string; field: string }> = {
  tool: { method: "tools/list", field: "tools" },
  prompt: { method: "prompts/list", field: "prompts" },
  resource_template: { method: "resources/templates/list", field: "resourceTemplates" },
};

/** One definition that differs from what was approved: changed, new, or a change the owner rejected. */
export const definitionChange = z.object({
  kind: z.enum(DEFINITION_KINDS),
  name: z.string(),
  status: z.enum(["changed", "new", "rejected"]),
  /** the approved definition (null for a new one) */
  approved: z.record(z.string(), z.unknown()).nullable(),
  /** what the server lists now */
  current: z.record(z.string(), z.unknown()),
  /** names `current`: a decision is about exactly this definition */
  hash: z.string(),
  changed_at: z.string(),
});
export type DefinitionChange = z.infer<typeof definitionChange>;

export const definitionReviewView = z.object({
  warn_only: z.boolean(),
  /** whether anything has been listed and pinned yet */
  pinned: z.boolean(),
  changes: z.array(definitionChange),
});
export type DefinitionReviewView = z.infer<typeof definitionReviewView>;

/** A UTF-16 surrogate without its pair: not text PostgreSQL (or any UTF-8) can hold. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");
/** Text PostgreSQL can store: NULs and lone surrogates become U+FFFD. */
export const storableText = (s: string) =>
  s.includes("\u0000") || LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, "\uFFFD").replaceAll("\u0000", "\uFFFD") : s;

/**
 * Characters a reader cannot see (zero-width, direction marks, Unicode tags that smuggle text to a
 * model, other format and control characters): shown as ⟨U+XXXX⟩ so a poisoned description cannot
 * look like the approved one.
 */
const INVISIBLE =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- these are exactly the characters to make visible
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB]|\uDB40[\uDC00-\uDDEF]/g;
export const showInvisible = (s: string) =>
  s.replace(INVISIBLE, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`);

export const definitionDecisionInput = z.object({
  decision: z.enum(["approve", "reject"]),
  items: z
    .array(
      z.object({
        kind: z.enum(DEFINITION_KINDS),
        name: z
          .string()
          .min(1)
          .max(500)
          .refine((n) => !n.includes("\u0000") && !LONE_SURROGATE.test(n), "Not a definition name"),
        hash: z.string().regex(/^[0-9a-f]{64}$/, "Not a definition hash"),
      }),
    )
    .min(1, "Choose at least one definition")
    .max(500, "At most 500 definitions at a time"),
});

export const definitionModeInput = z.object({ warn_only: z.boolean() });

export const DEFINITION_TEXT = {
  title: "Definition changes",
  intro:
    "Tool, prompt and resource template definitions are instructions to the model. They were pinned when the server first listed them; a change or a new one is withheld from clients until you approve it.",
  introWarn: "Warn only is on: changes reach clients at once and are listed here for you to review.",
  none: "No changes: clients see the definitions as they were approved.",
  notPinned: "Definitions are pinned once the server has started and listed them.",
  changed: "Changed",
  added: "New",
  rejected: "Rejected",
  approve: "Approve",
  reject: "Reject",
  approveAll: "Approve all",
  working: "Saving...",
  warnOnly: "Warn only (expose changes at once)",
  approvedNote: "Approved: connected clients are told the lists changed.",
  rejectedNote: "Rejected: it stays withheld while the server lists it this way.",
  changedAgain: "This definition changed again while you were looking: review the new one.",
  notFound: "This definition has no change waiting for review.",
  loadFailed: "Could not load the definition changes.",
  withheldTool: (name: string) =>
    `The tool "${name}" changed since its owner approved it and is withheld until the owner reviews the change`,
  withheldPrompt: (name: string) =>
    `The prompt "${name}" changed since its owner approved it and is withheld until the owner reviews the change`,
  kindLabel: { tool: "Tool", prompt: "Prompt", resource_template: "Resource template" } satisfies Record<DefinitionKind, string>,
} as const;
