import { ArrowLeft, ExternalLink, GitBranch, KeyRound } from "~/web/components/icons";
import { Link } from "react-router";
import { CATALOG_TEXT } from "../../shared/catalog";
import { longDate } from "../lib/dates";
import { buttonClass } from "./ui";

// Pieces both server pages (catalogue entries and owned servers) share.

export const serverCard = "rounded-xl border border-slate-200 bg-white p-6 dark:border-slate-800 dark:bg-slate-900/60";

/** Title and description tags of a server page; unknown servers are not indexed. */
export function serverMeta(d: { name: string; description: string; site: string } | undefined) {
  if (!d) return [{ title: CATALOG_TEXT.notFound }, { name: "robots", content: "noindex" }];
  const description = d.description.slice(0, 300);
  return [
    { title: `${d.name} MCP server - ${d.site}` },
    { name: "description", content: description },
    { property: "og:title", content: `${d.name} MCP server` },
    { property: "og:description", content: description },
  ];
}

/** 'Server not found' with 'Back to Servers' (docs/product.md#server-pages). */
export function ServerNotFound() {
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-3xl font-bold">{CATALOG_TEXT.notFound}</h1>
      <p className="mt-4 text-slate-600 dark:text-slate-400">{CATALOG_TEXT.loadFailed}</p>
      <Link to="/servers" className={`mt-8 ${buttonClass("primary")}`}>
        <ArrowLeft className="h-4 w-4" aria-hidden /> {CATALOG_TEXT.backToServers}
      </Link>
    </section>
  );
}

export function RequiredKeysList({ keys }: { keys: { key: string; env_var: string; description: string }[] }) {
  if (keys.length === 0) return null;
  return (
    <div className="mt-3">
      <p className="text-sm font-medium">Required keys</p>
      <ul className="mt-2 space-y-2 text-sm">
        {keys.map((k) => (
          <li key={k.env_var} className="flex gap-2">
            <KeyRound className="mt-0.5 h-4 w-4 shrink-0 text-slate-400" aria-hidden />
            <span>
              <span className="font-medium">{k.key}</span>{" "}
              <code className="font-mono text-xs text-slate-600 dark:text-slate-400">{k.env_var}</code>
              {k.description && <span className="block text-slate-600 dark:text-slate-400">{k.description}</span>}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function BackToServers() {
  return (
    <Link
      to="/servers"
      className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400"
    >
      <ArrowLeft className="h-4 w-4" aria-hidden /> {CATALOG_TEXT.backToServers}
    </Link>
  );
}

export function RepositoryLink({ url }: { url: string | null }) {
  if (!url) return null;
  return (
    <a
      href={url}
      target="_blank"
      rel="noopener nofollow ugc"
      className="mt-2 inline-flex max-w-full items-center gap-1 text-sm text-indigo-600 hover:underline dark:text-indigo-400"
    >
      <GitBranch className="h-4 w-4 shrink-0" aria-hidden /> <span className="min-w-0 break-all">{url.replace(/^https?:\/\//, "")}</span>
    </a>
  );
}

/** 'Visit Server' when the server has a web address (docs/product.md#server-pages). */
export function VisitServerButton({ url }: { url: string | null }) {
  if (!url) return null;
  return (
    <a href={url} target="_blank" rel="noopener nofollow ugc" className={`self-start ${buttonClass("primary")}`}>
      Visit Server <ExternalLink className="h-4 w-4" aria-hidden />
    </a>
  );
}

/** The facts under Server Information: category or version, created and updated dates. */
export function ServerFacts({ first, createdAt, updatedAt }: { first: [string, string]; createdAt: string; updatedAt: string }) {
  const facts: [string, string][] = [first, ["Created", longDate(createdAt)], ["Updated", longDate(updatedAt)]];
  return (
    <dl className="mt-6 grid gap-4 text-sm sm:grid-cols-3">
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt className="text-slate-600 dark:text-slate-400">{label}</dt>
          <dd className="mt-1 font-medium">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
