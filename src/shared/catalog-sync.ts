// The living catalogue's shapes and texts (docs/operations.md#registry-sync): the registry sync's
// state on the admin page, an admin's edit of an entry, and what the pages say of synced entries.
import { z } from "zod";
import { CATEGORIES } from "./catalog.js";

/** The registry sync on the admin page and an entry's page (docs/operations.md#registry-sync). */
export const SYNC_TEXT = {
  title: "Registry sync",
  off: "Off: set REGISTRY_SYNC_URL to keep the catalogue in step with a registry.",
  syncNow: "Sync now",
  syncing: "Syncing…",
  started: "Sync started.",
  already: "A sync is already running.",
  notConfigured: "The registry sync is off (REGISTRY_SYNC_URL is not set).",
  failedAction: "Failed to start the sync. Please try again later.",
  never: "Not run yet",
  status: { running: "Running", ok: "Last run succeeded", failed: "Last run failed" } as Record<string, string>,
  skippedTitle: (n: number) => `${n} skipped ${n === 1 ? "entry" : "entries"}`,
  skippedFirst: (n: number) => `The first ${n} with their reasons:`,
  deprecated: "Deprecated: its publisher marked this version deprecated in the registry.",
  withdrawn: "Withdrawn: the registry this entry came from deleted it. It is no longer listed; deployments of it keep working.",
  withdrawnDeployment: "Its catalogue entry was withdrawn: it is no longer listed. This deployment keeps working.",
  localEdits: "Local edits",
  localEditsHint: "Edited here: the registry sync keeps these edits.",
  takeUpstream: "Take upstream",
  takeUpstreamFailed: "Failed to take the registry's version. Please try again later.",
  noUpstream: "This entry has no registry version to take.",
  edit: "Edit entry",
  save: "Save",
  editFailed: "Failed to save the entry. Please try again later.",
} as const;

/** An admin's edit of an entry (PUT /api/admin/mcp-servers/{id}): the fields a reader sees. */
export const entryEdit = z.object({
  name: z.string().trim().min(1, "Name is required").max(200),
  description: z.string().trim().min(1, "Description is required").max(5000),
  category: z.enum(CATEGORIES),
  tags: z.array(z.string().trim().min(1).max(50)).max(10).default([]),
});
export type EntryEdit = z.infer<typeof entryEdit>;

/** GET /api/admin/registry-sync */
export const syncStatus = z.object({
  enabled: z.boolean(),
  upstream: z.string().nullable(),
  every_ms: z.number(),
  status: z.enum(["never", "running", "ok", "failed"]),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  last_ok_at: z.string().nullable(),
  error: z.string().nullable(),
  watermark: z.string().nullable(),
  pages: z.number(),
  entries: z.number(),
  counts: z.record(z.string(), z.number()),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
  runs: z.number(),
});
export type SyncStatus = z.infer<typeof syncStatus>;
