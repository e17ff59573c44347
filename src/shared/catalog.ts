import { z } from "zod";
import { SUBMIT_TEXT } from "./catalog-text.js";

export * from "./catalog-text.js";

// Categories, types, sources, sorts and page sizes of the catalogue (docs/product.md#catalogue).
export const CATEGORIES = [
  "Data & Storage",
  "Development Tools",
  "Content & Search",
  "AI & Memory",
  "System & Utilities",
  "Cloud Services",
  "Communication",
  "Featured",
] as const;
export const TYPES = ["Reference", "Official", "Community"] as const;
export const SOURCES = ["user_submitted", "imported", "official"] as const;
export const SORTS = ["relevance", "popular", "newest", "name"] as const;
export const SORT_LABELS: Record<(typeof SORTS)[number], string> = {
  relevance: "Best match",
  popular: "Most used",
  newest: "Newest",
  name: "A-Z",
};
export const DIRECTORY_PAGE_SIZE = 24;
/** Search totals are counted up to this many ("1,000+ servers"). */
export const SEARCH_COUNT_CAP = 1000;
export const RELATED_LIMIT = 6;

export const requiredKey = z.object({
  key: z.string().trim().min(1).max(100),
  env_var: z
    .string()
    .trim()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "Environment variable names use letters, digits and underscores"),
  description: z.string().trim().min(1).max(500),
});
export type RequiredKey = z.infer<typeof requiredKey>;

/** How the platform's check of an entry went ('works here', docs/product.md#works-here). */
export const CHECK_OUTCOMES = ["works", "needs-keys", "fails", "cannot-run"] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];
/** The public catalogue shape: is_approved, source, url, submitted_by and dates stripped (docs/product.md#server-pages). */
export const catalogServer = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  type: z.string(),
  category: z.string(),
  repository_url: z.string().nullable(),
  homepage: z.string().nullable(),
  documentation: z.string().nullable(),
  npx_command: z.string().nullable(),
  required_keys: z.array(requiredKey).nullable(),
  useCount: z.number().int(),
  /** its registry marked the version it has deprecated (docs/operations.md#registry-sync) */
  deprecated: z.boolean().optional(),
  /** its registry deleted it: unlisted; deployments of it keep working */
  withdrawn: z.boolean().optional(),
  /** the platform's last check of it: works, needs-keys, fails or cannot-run */
  check_outcome: z.enum(CHECK_OUTCOMES).nullable().optional(),
});
export type CatalogServer = z.infer<typeof catalogServer>;

export const listQuery = z.object({
  q: z.string().trim().max(200).optional(),
  category: z.enum(CATEGORIES).optional(),
  type: z.enum(TYPES).optional(),
  sort: z.enum(SORTS).optional(),
  /** only entries the platform's check started and saw list their tools ('Works here') */
  works: z.enum(["1"]).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(30),
  /** the previous answer's nextCursor: the next page of the same listing, in the order it began with */
  cursor: z.string().max(6000).optional(),
});
export type ListQuery = z.infer<typeof listQuery>;

export const pagination = z.object({ page: z.number(), pageSize: z.number(), total: z.number(), totalPages: z.number() });

/** Reject's optional reason (DELETE /api/admin/mcp-servers/{id}): kept for the submitter, e-mailed to them. */
export const REJECT_REASON_MAX = 1000;
export const rejectRequest = z.object({
  reason: z
    .string()
    .trim()
    .max(REJECT_REASON_MAX, `The reason can be at most ${REJECT_REASON_MAX} characters.`)
    .nullish()
    .transform((r) => r || null),
});
export type RejectRequest = z.input<typeof rejectRequest>;

export const checkResult = z.object({
  outcome: z.enum(CHECK_OUTCOMES),
  /** tools it listed (works) */
  tools: z.number().int().nullable(),
  /** why it failed, needs keys or cannot run */
  detail: z.string().nullable(),
  checked_at: z.string(),
});
export type CheckResult = z.infer<typeof checkResult>;

/** A blank id comes from the name: lowercase, spaces to hyphens, other characters dropped (docs/product.md#submit-a-catalogue-entry). */
export function idFromName(name: string): string {
  return name
    .toLowerCase()
    .trim()
    .replace(/\s+/g, "-")
    .replace(/[^a-z0-9-]/g, "")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
}

export const httpUrl = (field: string) =>
  z
    .string()
    .trim()
    .max(2000)
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === "http:" || u.protocol === "https:";
      } catch {
        return false;
      }
    }, SUBMIT_TEXT.urlInvalid(field));
export const optionalUrl = (field: string) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? null : v), httpUrl(field).nullable().optional());
const requiredText = (max: number) => z.string({ error: SUBMIT_TEXT.requiredFields }).trim().min(1, SUBMIT_TEXT.requiredFields).max(max);

export const submissionRequest = z
  .object({
    id: z.string().trim().max(100).optional().default(""),
    name: requiredText(200),
    description: requiredText(5000),
    category: z.enum(CATEGORIES, { error: SUBMIT_TEXT.requiredFields }),
    type: z.enum(TYPES, { error: SUBMIT_TEXT.requiredFields }),
    source: z.enum(SOURCES, { error: SUBMIT_TEXT.requiredFields }),
    tags: z.preprocess(
      (v) => (typeof v === "string" ? v.split(",") : v),
      z
        .array(z.string().trim().max(50))
        .transform((a) => [...new Set(a.filter(Boolean))])
        .pipe(z.array(z.string()).min(1, SUBMIT_TEXT.requiredFields).max(20)),
    ),
    url: optionalUrl("Server URL"),
    logo: optionalUrl("Logo URL"),
    repository_url: optionalUrl("Repository URL"),
    homepage: optionalUrl("Homepage URL"),
    documentation: optionalUrl("Documentation URL"),
    npx_command: z.preprocess(
      (v) => (typeof v === "string" && v.trim() === "" ? null : v),
      z.string().trim().max(500).nullable().optional(),
    ),
    required_keys: z.array(requiredKey).max(30).nullable().optional(),
  })
  .transform((b, ctx) => {
    const id = b.id || idFromName(b.name);
    if (!id) ctx.addIssue({ code: "custom", message: SUBMIT_TEXT.requiredFields, path: ["id"] });
    else if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) ctx.addIssue({ code: "custom", message: SUBMIT_TEXT.idFormat, path: ["id"] });
    return { ...b, id };
  });
export type SubmissionRequest = z.infer<typeof submissionRequest>;

/** The stored record (table mcp_servers), as the submitter and admins see it. */
export const serverRecord = catalogServer.extend({
  url: z.string().nullable(),
  logo: z.string().nullable(),
  source: z.string(),
  is_approved: z.boolean(),
  submitted_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** kept in step with a registry (REGISTRY_SYNC_URL) */
  synced: z.boolean().optional(),
  /** an admin's edits the sync keeps until an admin takes upstream again */
  local_edits: z.boolean().optional(),
});
export type ServerRecord = z.infer<typeof serverRecord>;
export const adminServer = serverRecord.extend({
  submitter: z.object({ username: z.string(), email: z.string() }),
  /** an approved entry whose listed tools differ from the ones it had when approved (docs/gateway.md#pinned-definitions), by tool name */
  tools_changed: z
    .object({ added: z.array(z.string()), changed: z.array(z.string()), removed: z.array(z.string()) })
    .nullable()
    .optional(),
  /** it has a public (approved) tool listing */
  public_listing: z.boolean().optional(),
  /** a platform check of it under way, or the last one failed (why) */
  check: z
    .object({ status: z.enum(["checking", "failed"]), detail: z.string().nullable() })
    .nullable()
    .optional(),
  /** what would run if approved: the command or repository, the publisher's URL, the declared transport, or why it cannot run here */
  runs: z
    .object({
      command: z.string().nullable(),
      repository: z.string().nullable(),
      remote: z.string().nullable(),
      transport: z.string().nullable(),
      reason: z.string().nullable(),
    })
    .optional(),
});
export type AdminServer = z.infer<typeof adminServer>;

/** GET /api/submissions: the signed-in user's submissions to the catalogue and where each stands. */
export const submissionLine = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(["pending", "approved", "rejected"]),
  submitted_at: z.string(),
  /** when it was approved or rejected */
  decided_at: z.string().nullable(),
  /** a rejection's reason, when the admin gave one */
  reason: z.string().nullable(),
});
export type SubmissionLine = z.infer<typeof submissionLine>;
