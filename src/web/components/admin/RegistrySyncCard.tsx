import { RefreshCw } from "~/web/components/icons";
import { SYNC_TEXT, type SyncStatus } from "~/shared/catalog-sync";
import { dateTime } from "../../lib/dates";
import { Enhanced, useActionForm } from "../../lib/forms";
import { Alert, Button } from "../ui";
import type { AdminAnswer } from "./answer";

// The registry sync on the admin page (docs/operations.md#registry-sync): its upstream, the last
// run (or the one under way, with its progress), what it did, why it stopped, what it skipped.

const COUNT_LABELS: Record<string, string> = {
  created: "created",
  updated: "updated",
  unchanged: "unchanged",
  withdrawn: "withdrawn",
  "kept-local": "kept local edits",
  older: "older versions",
  skipped: "skipped",
};

export function RegistrySyncCard({ sync }: { sync: SyncStatus }) {
  const { fetcher, busy } = useActionForm<AdminAnswer>("admin-sync");
  const error = fetcher.data?.error ?? null;
  const running = sync.status === "running";
  const counts = Object.entries(sync.counts).filter(([, n]) => n > 0);
  return (
    <section
      aria-labelledby="registry-sync"
      className="mt-6 rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900/60"
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id="registry-sync" className="text-lg font-semibold">
            {SYNC_TEXT.title}
          </h2>
          {sync.upstream ? (
            <p className="mt-1 break-all font-mono text-xs text-slate-600 dark:text-slate-400">{sync.upstream}</p>
          ) : (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{SYNC_TEXT.off}</p>
          )}
        </div>
        {sync.enabled && (
          <fetcher.Form method="post">
            <Enhanced />
            <input type="hidden" name="id" value="" />
            <Button type="submit" name="intent" value="sync" variant="secondary" size="sm" disabled={busy || running}>
              <RefreshCw className={`h-3.5 w-3.5 ${busy || running ? "animate-spin" : ""}`} aria-hidden />
              {busy || running ? SYNC_TEXT.syncing : SYNC_TEXT.syncNow}
            </Button>
          </fetcher.Form>
        )}
      </div>
      {sync.enabled && (
        <div className="mt-3 space-y-2 text-sm" role="status">
          <p>
            <span className="font-medium">{sync.status === "never" ? SYNC_TEXT.never : SYNC_TEXT.status[sync.status]}</span>
            {sync.started_at && <span className="text-slate-600 dark:text-slate-400"> · started {dateTime(sync.started_at)}</span>}
            {sync.last_ok_at && <span className="text-slate-600 dark:text-slate-400"> · last success {dateTime(sync.last_ok_at)}</span>}
          </p>
          {(running || sync.status !== "never") && (
            <p className="text-slate-700 dark:text-slate-300">
              {sync.pages} {sync.pages === 1 ? "page" : "pages"}, {sync.entries} {sync.entries === 1 ? "entry" : "entries"}
              {counts.length > 0 && `: ${counts.map(([k, n]) => `${n} ${COUNT_LABELS[k] ?? k}`).join(", ")}`}
            </p>
          )}
          {sync.error && <Alert kind="error">{sync.error}</Alert>}
          {sync.skipped.length > 0 && (
            <details>
              <summary className="cursor-pointer text-slate-700 dark:text-slate-300">
                {SYNC_TEXT.skippedTitle(Math.max(sync.counts.skipped ?? 0, sync.skipped.length))}
              </summary>
              {(sync.counts.skipped ?? 0) > sync.skipped.length && (
                <p className="mt-2 text-slate-600 dark:text-slate-400">{SYNC_TEXT.skippedFirst(sync.skipped.length)}</p>
              )}
              <ul className="mt-2 space-y-1">
                {sync.skipped.map((s, i) => (
                  <li key={i} className="break-words">
                    <span className="font-mono text-xs">{s.name}</span>: {s.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
      {error && (
        <div className="mt-3">
          <Alert kind="error">{error}</Alert>
        </div>
      )}
    </section>
  );
}
