import { Activity, CheckCircle2, KeyRound } from "~/web/components/icons";
import { Link } from "react-router";
import { WORKS_TEXT, type CatalogServer } from "../../shared/catalog";

export function TypeBadge({ type }: { type: string }) {
  const color =
    type === "Official"
      ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-300"
      : type === "Reference"
        ? "bg-sky-100 text-sky-800 dark:bg-sky-900/40 dark:text-sky-300"
        : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300";
  return <span className={`rounded px-2 py-0.5 text-xs font-medium ${color}`}>{type}</span>;
}

export function ServerCard({ server, maxTags }: { server: CatalogServer; maxTags: number }) {
  return (
    <Link
      to={`/server/${encodeURIComponent(server.id)}`}
      className="group flex h-full flex-col rounded-xl border border-slate-200 bg-white p-5 transition hover:border-indigo-400 hover:shadow-md focus-visible:outline-2 focus-visible:outline-indigo-500 dark:border-slate-800 dark:bg-slate-900/60 dark:hover:border-indigo-500"
    >
      <div className="flex items-start justify-between gap-3">
        <h3 className="font-semibold text-slate-900 group-hover:text-indigo-700 dark:text-white dark:group-hover:text-indigo-300">
          {server.name}
        </h3>
        <TypeBadge type={server.type} />
      </div>
      <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
        {server.category}
        {server.check_outcome === "works" && (
          <span className="inline-flex items-center gap-0.5 font-medium text-emerald-700 dark:text-emerald-400">
            <CheckCircle2 className="h-3.5 w-3.5" aria-hidden /> {WORKS_TEXT.badge}
          </span>
        )}
      </p>
      <p className="mt-3 line-clamp-3 flex-1 text-sm text-slate-600 dark:text-slate-400">{server.description}</p>
      <div className="mt-4 flex items-center justify-between gap-2">
        <ul className="flex flex-wrap gap-1.5" aria-label="Tags">
          {server.tags.slice(0, maxTags).map((t) => (
            <li key={t} className="rounded bg-indigo-50 px-2 py-0.5 text-xs text-indigo-700 dark:bg-indigo-950/60 dark:text-indigo-300">
              {t}
            </li>
          ))}
        </ul>
        <span className="flex shrink-0 items-center gap-3 text-xs text-slate-600 dark:text-slate-400">
          {server.required_keys && (
            <span className="flex items-center gap-1" title={`${server.required_keys.length} key(s) needed`}>
              <KeyRound className="h-3.5 w-3.5" aria-hidden />
              {server.required_keys.length}
            </span>
          )}
          <span className="flex items-center gap-1" title="People who used it in the last 30 days">
            <Activity className="h-3.5 w-3.5" aria-hidden />
            {server.useCount.toLocaleString("en-US")}
            <span className="sr-only">{server.useCount === 1 ? "user" : "users"} in the last 30 days</span>
          </span>
        </span>
      </div>
    </Link>
  );
}
