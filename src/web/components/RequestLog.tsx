import { History, Loader2 } from "~/web/components/icons";
import { useCallback, useEffect, useRef, useState } from "react";
import { formatBytes, formatDuration } from "../../shared/format";
import {
  OUTCOMES,
  OUTCOME_LABEL,
  REQUEST_LOG_TEXT,
  type Outcome,
  type RequestLogEntry,
  type RequestLogPage,
} from "../../shared/request-log";
import { api } from "../lib/api";
import { dateTime } from "../lib/dates";
import type { DeploymentState } from "../lib/use-deployment";
import { useStopping } from "../lib/use-stopping";
import { serverCard } from "./ServerParts";
import { Alert, inputClass, NeedsScript } from "./ui";

// The owner's request log of one deployment (docs/observability.md): the latest requests, newest
// first, polled every 3 s while the tab is visible. Everything shown came from clients and
// servers, so it is rendered as plain text only.

const POLL_MS = 3000;

/** longer than the Stop request may take (30 s) */

interface Filters {
  method: string;
  name: string;
  outcome: "" | Outcome;
  /** the playground's own requests too (hidden by default: they are not use) */
  playground: boolean;
}

function queryOf(f: Filters): string {
  const q = new URLSearchParams();
  if (f.method) q.set("method", f.method);
  if (f.name.trim()) q.set("name", f.name.trim().slice(0, 200));
  if (f.outcome) q.set("outcome", f.outcome);
  if (f.playground) q.set("playground", "1");
  const s = q.toString();
  return s ? `?${s}` : "";
}

const OUTCOME_STYLE: Record<Outcome, string> = {
  ok: "bg-green-100 text-green-800 dark:bg-green-950/60 dark:text-green-300",
  error: "bg-red-100 text-red-800 dark:bg-red-950/60 dark:text-red-300",
  tool_error: "bg-amber-100 text-amber-900 dark:bg-amber-950/60 dark:text-amber-300",
  cancelled: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300",
  rate_limited: "bg-orange-100 text-orange-900 dark:bg-orange-950/60 dark:text-orange-300",
};

function Row({ r }: { r: RequestLogEntry }) {
  const client = r.client_name ? `${r.client_name}${r.client_version ? ` ${r.client_version}` : ""}` : "–";
  return (
    <tr data-testid="request-log-row" className="align-top">
      <td className="whitespace-nowrap py-1.5 pr-3 text-slate-600 dark:text-slate-400">
        <time dateTime={r.at}>{dateTime(r.at, { seconds: true })}</time>
      </td>
      <td className="max-w-40 truncate py-1.5 pr-3" title={client}>
        {r.playground && (
          <span className="mr-1 rounded bg-indigo-50 px-1.5 py-0.5 font-medium text-indigo-800 dark:bg-indigo-950/60 dark:text-indigo-300">
            {REQUEST_LOG_TEXT.playgroundBadge}
          </span>
        )}
        {client}
        {r.caller && (
          <span data-testid="request-log-caller" className="block text-xs text-slate-600 dark:text-slate-400">
            {REQUEST_LOG_TEXT.by(r.caller)}
          </span>
        )}
      </td>
      <td className="whitespace-nowrap py-1.5 pr-3 font-mono">
        {r.method}
        {r.woke_ms !== null && (
          <span
            data-testid="request-log-woke"
            title={REQUEST_LOG_TEXT.wokeTitle}
            className="ml-1.5 rounded bg-amber-50 px-1.5 py-0.5 font-sans font-medium text-amber-800 dark:bg-amber-950/60 dark:text-amber-300"
          >
            {REQUEST_LOG_TEXT.wokeBadge(r.woke_ms)}
          </span>
        )}
      </td>
      <td className="max-w-48 truncate py-1.5 pr-3 font-mono" title={r.name ?? undefined}>
        {r.name ?? "–"}
      </td>
      <td className="whitespace-nowrap py-1.5 pr-3 text-right tabular-nums">{formatDuration(r.duration_ms)}</td>
      <td className="whitespace-nowrap py-1.5 pr-3">
        <span className={`rounded px-1.5 py-0.5 font-medium ${OUTCOME_STYLE[r.outcome]}`}>
          {OUTCOME_LABEL[r.outcome]}
          {r.error_code !== null ? ` ${r.error_code}` : ""}
        </span>
      </td>
      <td className="whitespace-nowrap py-1.5 text-right tabular-nums text-slate-600 dark:text-slate-400">
        {formatBytes(r.bytes_in)} / {formatBytes(r.bytes_out)}
      </td>
    </tr>
  );
}

interface Props {
  deploymentId: string;
  /** the page's deployment poll: once a stop begins, the log stops asking (the deployment is going) */
  onStopping?: DeploymentState["onStopping"];
  className?: string;
}

export function RequestLog({ deploymentId, onStopping, className = serverCard }: Props) {
  const [filters, setFilters] = useState<Filters>({ method: "", name: "", outcome: "", playground: false });
  const [data, setData] = useState<RequestLogPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Only the answer to the latest request counts: a slow poll must not overwrite newer filters.
  const seq = useRef(0);
  // While this page stops the deployment, the log stops polling it (and forgets what is in flight).
  const { stopping, track } = useStopping(onStopping, () => void seq.current++);

  const refresh = useCallback(async () => {
    const mine = ++seq.current;
    const r = await track(
      api<RequestLogPage>(`/api/deployments/${encodeURIComponent(deploymentId)}/requests${queryOf(filters)}`, { timeoutMs: 10_000 }),
    );
    if (mine !== seq.current) return;
    if (r.ok) {
      setData(r.data);
      setError(null);
    } else setError(r.error ?? REQUEST_LOG_TEXT.loadFailed);
  }, [deploymentId, filters, track]);

  useEffect(() => {
    if (stopping) return;
    const visible = () => document.visibilityState === "visible";
    // A short pause first, so typing a name sends one request rather than one per key.
    const first = setTimeout(() => void refresh(), 150);
    const timer = setInterval(() => {
      if (visible()) void refresh();
    }, POLL_MS);
    const onVisible = () => {
      if (visible()) void refresh();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [refresh, stopping]);

  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));
  const filtered = Boolean(filters.method || filters.name.trim() || filters.outcome);
  const methods = [...new Set([...(data?.methods ?? []), ...(filters.method ? [filters.method] : [])])].sort();
  const id = `request-log-${deploymentId}`;

  return (
    <section className={className} aria-labelledby={`${id}-title`} data-testid="request-log">
      <h2 id={`${id}-title`} className="flex items-center gap-2 text-lg font-semibold">
        <History className="h-5 w-5 text-indigo-500" aria-hidden /> {REQUEST_LOG_TEXT.title}
      </h2>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{REQUEST_LOG_TEXT.live}</p>
      <div className="mt-3 grid gap-2 sm:grid-cols-3" role="group" aria-label="Filters">
        <div>
          <label htmlFor={`${id}-method`} className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Method
          </label>
          <select
            id={`${id}-method`}
            className={`${inputClass} mt-1 py-1.5 text-sm`}
            value={filters.method}
            onChange={(e) => set({ method: e.target.value })}
          >
            <option value="">{REQUEST_LOG_TEXT.allMethods}</option>
            {methods.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-name`} className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Name
          </label>
          <input
            id={`${id}-name`}
            type="search"
            maxLength={200}
            placeholder="Tool, prompt or resource"
            className={`${inputClass} mt-1 py-1.5 text-sm`}
            value={filters.name}
            onChange={(e) => set({ name: e.target.value })}
          />
        </div>
        <div>
          <label htmlFor={`${id}-outcome`} className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Outcome
          </label>
          <select
            id={`${id}-outcome`}
            className={`${inputClass} mt-1 py-1.5 text-sm`}
            value={filters.outcome}
            onChange={(e) => set({ outcome: e.target.value as Filters["outcome"] })}
          >
            <option value="">{REQUEST_LOG_TEXT.allOutcomes}</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {OUTCOME_LABEL[o]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <label className="mt-2 flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
        <input
          type="checkbox"
          className="h-4 w-4 rounded border-slate-300"
          checked={filters.playground}
          onChange={(e) => set({ playground: e.target.checked })}
        />
        {REQUEST_LOG_TEXT.showPlayground}
      </label>
      {error && (
        <div className="mt-3">
          <Alert kind="error">{error}</Alert>
        </div>
      )}
      {!data && !error && (
        <p className="mt-3 flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400" role="status">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> {REQUEST_LOG_TEXT.loading}
        </p>
      )}
      {!data && !error && <NeedsScript />}
      {data && data.requests.length === 0 && (
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{filtered ? REQUEST_LOG_TEXT.noMatch : REQUEST_LOG_TEXT.empty}</p>
      )}
      {data && data.requests.length > 0 && (
        <div tabIndex={0} className="mt-3 max-h-96 overflow-auto">
          <table className="w-full text-left text-xs">
            <caption className="sr-only">Latest requests to this deployment, newest first</caption>
            <thead className="sticky top-0 bg-white text-slate-600 dark:text-slate-400 dark:bg-slate-900">
              <tr>
                <th scope="col" className="py-1.5 pr-3 font-medium">
                  Time
                </th>
                <th scope="col" className="py-1.5 pr-3 font-medium">
                  Client
                </th>
                <th scope="col" className="py-1.5 pr-3 font-medium">
                  Method
                </th>
                <th scope="col" className="py-1.5 pr-3 font-medium">
                  Name
                </th>
                <th scope="col" className="py-1.5 pr-3 text-right font-medium">
                  Duration
                </th>
                <th scope="col" className="py-1.5 pr-3 font-medium">
                  Outcome
                </th>
                <th scope="col" className="py-1.5 text-right font-medium">
                  <abbr title="Bytes received from the client / sent back to it" className="no-underline">
                    In / out
                  </abbr>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {data.requests.map((r, i) => (
                <Row key={`${r.at}-${i}`} r={r} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
