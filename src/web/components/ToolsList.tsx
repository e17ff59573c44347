import { Wrench } from "~/web/components/icons";
import { toolStatLine, type ToolStat } from "../../shared/request-log";
import { longDate } from "../lib/dates";

export interface ToolInfo {
  name: string;
  description: string;
  params: { name: string; type: string; required: boolean; description: string }[];
}

/**
 * The tools a server offers, each with its figures over the last 24 h when it was called (`stats`):
 * the public listing (a catalogue entry's approved one, docs/product.md#trusted-listings), or, to
 * a viewer with a deployment of it, what their own deployment listed (`own`).
 */
export function ToolsList({
  tools,
  listedAt,
  className,
  stats,
  own,
  empty,
}: {
  tools: ToolInfo[];
  listedAt: string | null;
  className: string;
  stats?: ToolStat[];
  own?: boolean;
  empty?: string;
}) {
  const figures = new Map((stats ?? []).map((s) => [s.name, toolStatLine(s)]));
  return (
    <section className={className} aria-labelledby="tools">
      <h2 id="tools" className="flex items-center gap-2 text-lg font-semibold">
        <Wrench className="h-5 w-5 text-indigo-500" aria-hidden /> Tools
      </h2>
      {tools.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          {empty ?? "Its tools are listed here once it has been deployed and has started."}
        </p>
      ) : (
        <>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            {tools.length} tools{listedAt ? `, listed ${longDate(listedAt)}` : ""}
            {own ? " by your deployment (only you see this list)" : ""}
          </p>
          <ul className="mt-3 divide-y divide-slate-200 dark:divide-slate-800">
            {tools.map((t) => (
              <li key={t.name} className="py-3">
                <p className="font-mono text-sm font-semibold">{t.name}</p>
                {t.description && <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">{t.description}</p>}
                {figures.get(t.name) && (
                  <p data-testid="tool-stats" className="mt-0.5 text-xs tabular-nums text-slate-600 dark:text-slate-400">
                    {figures.get(t.name)}
                  </p>
                )}
                {t.params.length > 0 && (
                  <ul className="mt-2 flex flex-wrap gap-1.5" aria-label={`Parameters of ${t.name}`}>
                    {t.params.map((p) => (
                      <li
                        key={p.name}
                        title={p.description || undefined}
                        className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300"
                      >
                        {p.name}
                        {p.required ? "" : "?"}: {p.type}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
