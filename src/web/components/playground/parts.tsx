import { Loader2, Play, Square } from "~/web/components/icons";
import { useId, useState, type ReactNode } from "react";
import { Button, inputClass } from "../ui";
import { PLAYGROUND_TEXT as T } from "./text";

// Pieces every tab of the playground shares: the list to pick a tool (prompt, resource) from,
// the Run / Cancel buttons, and the runner around a form that Ctrl+Enter runs.

export interface PickItem {
  id: string;
  title: string;
  /** the machine name, when a title is shown in its place */
  subtitle?: string;
  description: string;
}

const FILTER_FROM = 8;

export function Picker({
  what,
  items,
  selected,
  onSelect,
  children,
}: {
  what: string;
  items: PickItem[];
  selected: string;
  onSelect: (id: string) => void;
  children: ReactNode;
}) {
  const [q, setQ] = useState("");
  const filterId = useId();
  const needle = q.trim().toLowerCase();
  const shown = needle ? items.filter((i) => `${i.title} ${i.subtitle ?? ""} ${i.description}`.toLowerCase().includes(needle)) : items;
  return (
    <div className="grid gap-4 md:grid-cols-[minmax(0,15rem)_minmax(0,1fr)]">
      <div className="space-y-2">
        {items.length >= FILTER_FROM && (
          <>
            <label htmlFor={filterId} className="sr-only">
              {T.filter(what)}
            </label>
            <input
              id={filterId}
              type="search"
              placeholder={T.filterPlaceholder(what)}
              className={`${inputClass} py-1.5 text-sm`}
              value={q}
              onChange={(e) => setQ(e.target.value)}
            />
          </>
        )}
        <ul aria-label={`${what[0]!.toUpperCase()}${what.slice(1)}`} className="max-h-[28rem] space-y-1 overflow-auto pr-1">
          {shown.map((i) => {
            const active = i.id === selected;
            return (
              <li key={i.id}>
                <button
                  type="button"
                  aria-current={active ? "true" : undefined}
                  onClick={() => onSelect(i.id)}
                  className={`w-full rounded-md border px-3 py-2 text-left focus-visible:outline-2 focus-visible:outline-indigo-500 ${
                    active
                      ? "border-indigo-300 bg-indigo-50 dark:border-indigo-800 dark:bg-indigo-950/50"
                      : "border-transparent hover:bg-slate-50 dark:hover:bg-slate-800/60"
                  }`}
                >
                  <span className={`block truncate font-mono text-sm font-medium ${active ? "text-indigo-700 dark:text-indigo-300" : ""}`}>
                    {i.subtitle ?? i.title}
                  </span>
                  {i.description && <span className="mt-0.5 line-clamp-2 text-xs text-slate-600 dark:text-slate-400">{i.description}</span>}
                </button>
              </li>
            );
          })}
          {shown.length === 0 && <li className="px-3 py-2 text-sm text-slate-600 dark:text-slate-400">{T.noMatch(what)}</li>}
        </ul>
      </div>
      <div className="min-w-0">{children}</div>
    </div>
  );
}

export function RunButtons({
  label,
  running,
  onRun,
  onCancel,
  problem,
}: {
  label: string;
  running: boolean;
  onRun: () => void;
  onCancel: () => void;
  problem?: string | null;
}) {
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" onClick={onRun} disabled={running}>
          {running ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Play className="h-4 w-4" aria-hidden />}
          {label}
        </Button>
        {running && (
          <Button size="sm" variant="secondary" onClick={onCancel}>
            <Square className="h-4 w-4" aria-hidden /> {T.cancel}
          </Button>
        )}
        <span className="text-xs text-slate-600 dark:text-slate-400">
          <kbd className="rounded border border-slate-300 px-1 font-sans dark:border-slate-700">{T.shortcut[0]}</kbd> +{" "}
          <kbd className="rounded border border-slate-300 px-1 font-sans dark:border-slate-700">{T.shortcut[1]}</kbd>
        </span>
      </div>
      {problem && (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
    </div>
  );
}

/** A tool's (prompt's, resource's) runner: Ctrl+Enter, or Cmd+Enter on a Mac, anywhere in it runs it. */
export function Runner({ onRun, children }: { onRun: () => void; children: ReactNode }) {
  return (
    <div
      className="space-y-4"
      onKeyDown={(e) => {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          onRun();
        }
      }}
    >
      {children}
    </div>
  );
}
