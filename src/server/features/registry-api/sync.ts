// The living catalogue (docs/operations.md#registry-sync): the catalogue kept in step with an
// official-registry compatible /v0.1/servers endpoint (REGISTRY_SYNC_URL). Every process ticks; one
// claims each interval's run (cluster/jobs.ts) and one run at a time holds the upstream's row
// (sync-repo.ts). A run asks for what changed since the last complete run (`updated_since`) and
// follows the cursors; each entry is written whole or skipped with its reason (importer.ts).
import { createHash } from "node:crypto";
import { claimRun } from "../../cluster/jobs.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import { invalidateCatalog } from "../catalog/cache.js";
import { nextUnchecked } from "../catalog/registry-repo.js";
import { namespaceFor } from "./format.js";
import { importEntry, type UpstreamMeta } from "./importer.js";
import { beginRun, finishRun, reportProgress, type RunReport } from "./sync-repo.js";

export const SYNC_JOB = "registry-sync";
const OFFICIAL = "io.modelcontextprotocol.registry/official";
/** Entries asked for per page (the official registry's maximum). */
const PAGE_LIMIT = 100;
/** A run stops after this many pages: an upstream that never ends is not followed for ever. */
const MAX_PAGES = 2_000;
/** A run stops after this long, whatever its pages: an upstream that trickles is not followed for ever. */
const MAX_RUN_MS = 60 * 60_000;
/** Reasons kept for the admin page: the first ones say what is wrong. */
const MAX_SKIPPED = 100;

export interface SyncConfig {
  REGISTRY_SYNC_URL?: string;
  /** this site's address: its own namespace of registry names is never the upstream's */
  PUBLIC_URL?: string;
  REGISTRY_SYNC_MS: number;
  REGISTRY_SYNC_CHECKS_PER_HOUR: number;
  REGISTRY_SYNC_TIMEOUT_MS: number;
  REGISTRY_SYNC_MAX_PAGE_BYTES: number;
}

export interface SyncDeps {
  db: Db;
  log: Logger;
  config: SyncConfig;
  /** starts the platform's check of an entry ('works here', deployments/checks/checks.ts) */
  check?: (entryId: string) => Promise<void>;
}

export const CHECK_JOB = "registry-sync-checks";

export interface SyncResult extends RunReport {
  error: string | null;
}

/** Why a page could not be taken; the run stops there and says so. */
class PageError extends Error {}

interface Page {
  items: unknown[];
  nextCursor: string | null;
}

/** A page's body, read up to `max` bytes: a bigger one is refused before it is all in memory. */
async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  const limit = max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MB` : `${Math.round(max / 1024)} KB`;
  const tooBig = () => new PageError(`the page is larger than ${limit}`);
  if (declared > max) {
    await res.body?.cancel();
    throw tooBig();
  }
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooBig();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function fetchPage(config: SyncConfig, since: string | null, cursor: string | null): Promise<Page> {
  const url = new URL(config.REGISTRY_SYNC_URL!);
  url.searchParams.set("limit", String(PAGE_LIMIT));
  if (since) url.searchParams.set("updated_since", since);
  if (cursor) url.searchParams.set("cursor", cursor);
  let body: string;
  try {
    const res = await fetch(url, {
      headers: { accept: "application/json", "user-agent": "Switchboard registry sync" },
      signal: AbortSignal.timeout(config.REGISTRY_SYNC_TIMEOUT_MS),
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new PageError(`the registry answered HTTP ${res.status}`);
    }
    body = await readCapped(res, config.REGISTRY_SYNC_MAX_PAGE_BYTES);
  } catch (e) {
    if (e instanceof PageError) throw e;
    const err = e as Error;
    if (err.name === "TimeoutError" || err.name === "AbortError")
      throw new PageError(`the registry did not answer within ${config.REGISTRY_SYNC_TIMEOUT_MS / 1000} s`);
    throw new PageError(`the registry could not be reached (${(err.cause as Error | undefined)?.message ?? err.message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new PageError("the page is not JSON");
  }
  const servers = (doc as { servers?: unknown } | null)?.servers;
  if (!Array.isArray(servers)) throw new PageError("the page has no servers list");
  const next = (doc as { metadata?: { nextCursor?: unknown } }).metadata?.nextCursor;
  return { items: servers, nextCursor: typeof next === "string" && next !== "" ? next.slice(0, 2048) : null };
}

/** One item of a page: the server.json and the registry's word on it. */
function itemOf(item: unknown, upstream: string, ownNamespace?: string): { server: unknown; meta: UpstreamMeta; latest: boolean } | null {
  if (!item || typeof item !== "object" || !("server" in item)) return null;
  const official = ((item as { _meta?: Record<string, unknown> })._meta?.[OFFICIAL] ?? {}) as Record<string, unknown>;
  const status = official.status === "deprecated" || official.status === "deleted" ? official.status : "active";
  const at = typeof official.updatedAt === "string" ? new Date(official.updatedAt) : null;
  return {
    server: (item as { server: unknown }).server,
    meta: { upstream, ownNamespace, status, updatedAt: at && !Number.isNaN(at.getTime()) ? at : null },
    latest: official.isLatest !== false,
  };
}

export class RegistrySync {
  private timer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  /** a run of this process's is under way (another process's shows in the row) */
  private running = false;

  constructor(private readonly d: SyncDeps) {}

  get enabled(): boolean {
    return Boolean(this.d.config.REGISTRY_SYNC_URL);
  }

  /** Ticks every interval (a tenth of it, at most a minute, so a missed claim is soon made up) once the platform listens. */
  start(): void {
    if (!this.enabled || this.timer) return;
    const tickMs = Math.min(60_000, Math.max(1000, Math.floor(this.d.config.REGISTRY_SYNC_MS / 10)));
    this.timer = setInterval(() => void this.tick(), tickMs).unref();
    void this.tick();
    const perHour = this.d.config.REGISTRY_SYNC_CHECKS_PER_HOUR;
    if (perHour > 0 && this.d.check) {
      const everyMs = Math.ceil(3_600_000 / perHour);
      this.checkTimer = setInterval(() => void this.checkNext(everyMs), Math.min(everyMs, 60_000)).unref();
    }
  }

  /**
   * New synced entries are checked as they arrive, at most REGISTRY_SYNC_CHECKS_PER_HOUR across the
   * cluster (one claim per interval), oldest first: each check runs its server in the sandbox.
   */
  async checkNext(everyMs: number): Promise<string | undefined> {
    try {
      if (!(await claimRun(this.d.db, CHECK_JOB, everyMs))) return undefined;
      const id = await nextUnchecked(this.d.db);
      if (!id) return undefined;
      // One that cannot run is recorded as such by the check itself; that is its outcome too.
      await this.d.check!(id).catch((e: unknown) => this.d.log.info({ entry: id, why: (e as Error).message }, "sync check not started"));
      return id;
    } catch (e) {
      this.d.log.error({ err: e }, "registry sync: could not start a check");
      return undefined;
    }
  }

  private async tick(): Promise<void> {
    try {
      if (!(await claimRun(this.d.db, SYNC_JOB, this.d.config.REGISTRY_SYNC_MS))) return;
      await this.run();
    } catch (e) {
      this.d.log.error({ err: e }, "registry sync failed");
    }
  }

  /** A run now, to its end: null when one is already under way anywhere. */
  async run(): Promise<SyncResult | null> {
    const work = await this.begin();
    return work ? work() : null;
  }

  /**
   * 'Sync now' on the admin page: once the run holds the upstream's row (so the page already reads
   * it as running), it goes on in the background. False when one is under way anywhere.
   */
  async kick(): Promise<boolean> {
    const work = await this.begin();
    if (!work) return false;
    void work().catch((e: unknown) => this.d.log.error({ err: e }, "registry sync failed"));
    return true;
  }

  /** Takes the upstream's row for a run (one at a time, across processes); the run itself, or null. */
  private async begin(): Promise<(() => Promise<SyncResult>) | null> {
    const upstream = this.d.config.REGISTRY_SYNC_URL;
    if (!upstream || this.running) return null;
    this.running = true;
    try {
      const claimed = await beginRun(this.d.db, upstream);
      if (!claimed) {
        this.running = false;
        return null;
      }
      return () =>
        this.work(upstream, claimed.watermark).finally(() => {
          this.running = false;
        });
    } catch (e) {
      this.running = false;
      throw e;
    }
  }

  private async work(upstream: string, watermark: string | null): Promise<SyncResult> {
    const claimed = { watermark };
    const report: RunReport = { pages: 0, entries: 0, counts: {}, skipped: [] };
    const count = (k: string) => (report.counts[k] = (report.counts[k] ?? 0) + 1);
    const skip = (name: string, reason: string) => {
      count("skipped");
      if (report.skipped.length < MAX_SKIPPED) report.skipped.push({ name: name.slice(0, 200), reason: reason.slice(0, 300) });
    };
    // The next run asks for what changed since the newest date read, never past this run's start:
    // an upstream date in the future would otherwise hide every later change.
    const startedAt = Date.now();
    const ownNamespace = this.d.config.PUBLIC_URL ? namespaceFor(this.d.config.PUBLIC_URL) : undefined;
    let newest = claimed.watermark;
    let error: string | null = null;
    const seen = new Set<string>();
    const pagesSeen = new Set<string>();
    let cursor: string | null = null;
    // Readers are told after each page that changed something (every web process refreshes its
    // search index by what changed, 30-100 ms at 100,000 entries), so they agree within a page.
    let untold = false;
    const tell = async () => {
      if (!untold) return;
      untold = false;
      await invalidateCatalog(this.d.db);
    };
    const overdue = () => {
      if (Date.now() - startedAt > MAX_RUN_MS) throw new PageError(`the run took longer than ${MAX_RUN_MS / 60_000} minutes: stopped`);
    };
    try {
      for (;;) {
        overdue();
        const page = await fetchPage(this.d.config, claimed.watermark, cursor);
        // Asked for PAGE_LIMIT: a page of thousands of tiny entries is not taken (each is a transaction).
        if (page.items.length > PAGE_LIMIT)
          throw new PageError(`the page has ${page.items.length} entries, more than the ${PAGE_LIMIT} asked for`);
        // A cursor that changes every time around the same entries is a loop too.
        const content = createHash("sha256").update(JSON.stringify(page.items)).digest("base64");
        if (page.items.length && pagesSeen.has(content)) throw new PageError("the registry sent a page it had sent before (a loop)");
        pagesSeen.add(content);
        report.pages++;
        for (const raw of page.items) {
          overdue();
          report.entries++;
          const item = itemOf(raw, upstream, ownNamespace);
          if (!item) {
            skip("(unnamed)", "not a server response ({server, _meta})");
            continue;
          }
          const at = item.meta.updatedAt && Math.min(item.meta.updatedAt.getTime(), startedAt);
          if (at && (!newest || at > new Date(newest).getTime())) newest = new Date(at).toISOString();
          // One row per server: an older version's news changes nothing here.
          if (!item.latest) {
            count("older");
            continue;
          }
          const r = await importEntry(this.d.db, item.server, item.meta);
          if (r.action === "invalid" || r.action === "skipped") skip(r.name, r.reason);
          else count(r.action);
          if (r.action !== "invalid" && r.action !== "skipped" && r.action !== "unchanged") untold = true;
        }
        await tell();
        await reportProgress(this.d.db, upstream, report);
        if (!page.nextCursor) break;
        if (seen.has(page.nextCursor)) throw new PageError("the registry sent a cursor it had sent before (a loop)");
        if (report.pages >= MAX_PAGES) throw new PageError(`more than ${MAX_PAGES} pages: stopped`);
        seen.add(page.nextCursor);
        cursor = page.nextCursor;
      }
    } catch (e) {
      error = e instanceof PageError ? `Page ${report.pages + 1}: ${e.message}` : `Stopped: ${(e as Error).message.split("\n")[0]}`;
      this.d.log.warn({ upstream, err: error }, "registry sync stopped");
    }
    await tell();
    await finishRun(this.d.db, upstream, { ...report, error, watermark: newest });
    this.d.log.info({ upstream, pages: report.pages, counts: report.counts, error }, "registry sync ran");
    return { ...report, error };
  }

  close(): void {
    clearInterval(this.timer);
    clearInterval(this.checkTimer);
    this.timer = undefined;
    this.checkTimer = undefined;
  }
}
