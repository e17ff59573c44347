import { z } from "zod";

// Spec section 9.
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

/** The public catalogue shape (spec section 3: is_approved, source, url, submitted_by and dates stripped). */
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
});
export type CatalogServer = z.infer<typeof catalogServer>;

export const listQuery = z.object({
  q: z.string().trim().max(200).optional(),
  category: z.enum(CATEGORIES).optional(),
  type: z.enum(TYPES).optional(),
  sort: z.enum(SORTS).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(30),
});
export type ListQuery = z.infer<typeof listQuery>;

export const pagination = z.object({ page: z.number(), pageSize: z.number(), total: z.number(), totalPages: z.number() });

export const CATALOG_TEXT = {
  notFound: "Server not found",
  backToServers: "Back to Servers",
  loadFailed: "Failed to load server details. The server may not exist or you may not have permission to view it.",
  empty: "No servers match your search.",
  emptyHint: "Try fewer words, another category, or clear the filters.",
} as const;
