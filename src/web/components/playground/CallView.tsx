import { Ban, Loader2, XCircle } from "~/web/components/icons";
import type { ReactNode } from "react";
import { formatDuration } from "~/shared/format";
import type { LogEntry } from "./mcp-client";
import { own } from "./schema";
import { PLAYGROUND_TEXT as T } from "./text";
import type { CallState, Progress } from "./use-call";

// A request's life as the playground shows it: running (progress, server log), then the outcome
// with its duration. Status changes are announced (aria-live) for screen readers.

function ProgressView({ p }: { p: Progress | null }) {
  const total = p?.total && p.total > 0 ? p.total : undefined;
  const pct = p && total ? Math.min(100, Math.max(0, (p.progress / total) * 100)) : undefined;
  return (
    <div data-testid="playground-progress" className="space-y-1">
      <div
        role="progressbar"
        aria-label={T.progress}
        aria-valuemin={0}
        aria-valuemax={total ?? undefined}
        aria-valuenow={p && total ? p.progress : undefined}
        className="h-2 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800"
      >
        <div
          className={`h-full rounded-full bg-indigo-500 transition-[width] duration-300 ${pct === undefined ? "w-1/3 animate-pulse" : ""}`}
          style={pct === undefined ? undefined : { width: `${pct}%` }}
        />
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {p ? (total ? T.progressOf(p.progress, total) : T.progressDone(p.progress)) : T.waiting}
        {p?.message ? ` · ${p.message.slice(0, 500)}` : ""}
      </p>
    </div>
  );
}

const LEVEL_COLOUR: Record<string, string> = {
  debug: "text-slate-400",
  info: "text-sky-300",
  notice: "text-sky-300",
  warning: "text-amber-300",
  error: "text-red-300",
  critical: "text-red-300",
  alert: "text-red-300",
  emergency: "text-red-300",
};

export function LogView({ logs }: { logs: LogEntry[] }) {
  if (logs.length === 0) return null;
  return (
    <div>
      <p className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{T.serverLog}</p>
      <ol
        data-testid="playground-log"
        aria-label={T.serverLog}
        className="max-h-48 overflow-auto rounded-md bg-slate-950 p-2 font-mono text-xs text-slate-100"
      >
        {logs.map((l, i) => (
          <li key={i} className="whitespace-pre-wrap break-words">
            <span className={own(LEVEL_COLOUR, l.level) ?? "text-slate-400"}>{l.level.padEnd(7)}</span>{" "}
            {l.logger && <span className="text-slate-400">[{l.logger}] </span>}
            {l.data}
          </li>
        ))}
      </ol>
    </div>
  );
}

export function CallView<T>({ state, logs, children }: { state: CallState<T>; logs?: LogEntry[]; children: (value: T) => ReactNode }) {
  const { running, outcome } = state;
  if (!running && !outcome) return null;
  return (
    <div className="space-y-3 border-t border-slate-200 pt-4 dark:border-slate-800">
      <div aria-live="polite" className="flex items-center justify-between gap-2 text-sm">
        <span className="flex items-center gap-2 font-medium">
          {running && (
            <>
              <Loader2 className="h-4 w-4 animate-spin text-indigo-500" aria-hidden /> {T.running}
            </>
          )}
          {outcome?.kind === "ok" && T.result}
          {outcome?.kind === "error" && (
            <span className="flex items-center gap-1.5 text-red-700 dark:text-red-300">
              <XCircle className="h-4 w-4" aria-hidden /> {T.error}
            </span>
          )}
          {outcome?.kind === "cancelled" && (
            <span className="flex items-center gap-1.5 text-amber-700 dark:text-amber-300">
              <Ban className="h-4 w-4" aria-hidden /> {T.cancelled}
            </span>
          )}
        </span>
        {state.ms !== null && (
          <span data-testid="playground-duration" className="font-mono text-xs text-slate-600 dark:text-slate-400">
            {formatDuration(state.ms)}
          </span>
        )}
      </div>
      {running && <ProgressView p={state.progress} />}
      {logs && <LogView logs={logs} />}
      <div data-testid="playground-result">
        {outcome?.kind === "ok" && children(outcome.value)}
        {outcome?.kind === "error" && (
          <div
            role="alert"
            className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-300"
          >
            {outcome.code !== undefined && <p className="font-mono text-xs">{T.rpcError(outcome.code)}</p>}
            <p className="whitespace-pre-wrap break-words">{outcome.message}</p>
          </div>
        )}
        {outcome?.kind === "cancelled" && <p className="text-sm text-slate-600 dark:text-slate-400">{T.cancelledNote}</p>}
      </div>
    </div>
  );
}
