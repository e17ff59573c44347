// The admin's side of the living catalogue: the registry sync's state and 'Sync now', and an
// entry's local edits ('Edit entry', 'Take upstream').
import { createRoute, z } from "@hono/zod-openapi";
import { serverRecord } from "~/shared/catalog.js";
import { entryEdit, SYNC_TEXT, syncStatus, type SyncStatus } from "~/shared/catalog-sync.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import { ACCESS_TEXT, requireAdmin } from "../../http/guards.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { toRecord } from "../catalog/submissions.js";
import { editEntry, takeUpstream } from "./local-edits.js";
import type { RegistrySync } from "./sync.js";
import { syncState } from "./sync-repo.js";

const ACCESS = { mustLogin: "You must be logged in", forbidden: ACCESS_TEXT.adminsOnly } as const;
const denied = { 401: jsonError("Not signed in"), 403: jsonError("Not an admin") };

const status = createRoute({
  method: "get",
  path: "/admin/registry-sync",
  tags: ["admin"],
  summary: "The registry sync: its upstream, the last run's outcome, counts and skipped entries, or its progress",
  responses: { 200: { content: { "application/json": { schema: syncStatus } }, description: "Its state" }, ...denied },
});

const runNow = createRoute({
  method: "post",
  path: "/admin/registry-sync",
  tags: ["admin"],
  summary: "Sync now (it runs in the background; GET shows its progress)",
  responses: {
    202: { content: { "application/json": { schema: z.object({ started: z.literal(true) }) } }, description: "Started" },
    ...denied,
    409: jsonError("Off, or a sync is already running"),
  },
});

const idParam = z.object({ id: z.string().min(1).max(200) });
const edit = createRoute({
  method: "put",
  path: "/admin/mcp-servers/{id}",
  tags: ["admin"],
  summary: "Edit an entry's name, description, category and tags (the registry sync keeps these local edits)",
  request: { params: idParam, body: { required: true, content: { "application/json": { schema: entryEdit } } } },
  responses: {
    200: { content: { "application/json": { schema: serverRecord } }, description: "Saved" },
    400: jsonError("Invalid fields"),
    ...denied,
    404: jsonError("Unknown server"),
  },
});

const take = createRoute({
  method: "post",
  path: "/admin/mcp-servers/{id}/take-upstream",
  tags: ["admin"],
  summary: "Drop the local edits: the registry's version as last received, kept in step again",
  request: { params: idParam },
  responses: {
    200: { content: { "application/json": { schema: serverRecord } }, description: "Taken" },
    ...denied,
    404: jsonError("Unknown server"),
    409: jsonError("No registry version to take"),
  },
});

async function statusOf(db: Db, sync: RegistrySync, config: { REGISTRY_SYNC_URL?: string; REGISTRY_SYNC_MS: number }): Promise<SyncStatus> {
  const upstream = config.REGISTRY_SYNC_URL ?? null;
  const row = upstream ? await syncState(db, upstream) : undefined;
  const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
  return {
    enabled: sync.enabled,
    upstream,
    every_ms: config.REGISTRY_SYNC_MS,
    status: row ? (row.status as SyncStatus["status"]) : "never",
    started_at: iso(row?.startedAt),
    finished_at: iso(row?.finishedAt),
    last_ok_at: iso(row?.lastOkAt),
    error: row?.error ?? null,
    watermark: row?.watermark ?? null,
    pages: row?.progress.pages ?? 0,
    entries: row?.progress.entries ?? 0,
    counts: row?.counts ?? {},
    skipped: row?.skipped ?? [],
    runs: row?.runs ?? 0,
  };
}

export function syncRoutes(deps: { db: Db; sync: RegistrySync; config: { REGISTRY_SYNC_URL?: string; REGISTRY_SYNC_MS: number } }) {
  const { db, sync } = deps;
  return apiRouter()
    .openapi(status, async (c) => {
      requireAdmin(c, ACCESS.mustLogin, ACCESS.forbidden);
      return c.json(await statusOf(db, sync, deps.config), 200);
    })
    .openapi(runNow, async (c) => {
      requireAdmin(c, ACCESS.mustLogin, ACCESS.forbidden);
      if (!sync.enabled) throw new AppError("conflict", SYNC_TEXT.notConfigured);
      if (!(await sync.kick())) throw new AppError("conflict", SYNC_TEXT.already);
      return c.json({ started: true as const }, 202);
    })
    .openapi(edit, async (c) => {
      requireAdmin(c, ACCESS.mustLogin, ACCESS.forbidden);
      return c.json(toRecord(await editEntry(db, c.req.valid("param").id, c.req.valid("json"))), 200);
    })
    .openapi(take, async (c) => {
      requireAdmin(c, ACCESS.mustLogin, ACCESS.forbidden);
      return c.json(toRecord(await takeUpstream(db, c.req.valid("param").id)), 200);
    });
}
