import { CheckCircle2, ChevronLeft, ChevronRight, Search, SearchX } from "~/web/components/icons";
import { Form, Link, useNavigation, useSubmit } from "react-router";
import { listServers } from "../../server/features/catalog/service";
import {
  CATALOG_TEXT,
  CATEGORIES,
  DIRECTORY_PAGE_SIZE,
  SEARCH_COUNT_CAP,
  SORTS,
  SORT_LABELS,
  TYPES,
  WORKS_TEXT,
  listQuery,
} from "../../shared/catalog";
import { WAY_IN_TEXT } from "../../shared/way-in";
import { ServerCard } from "../components/ServerCard";
import { SignInButtons } from "../components/SignInLinks";
import { Button, buttonClass } from "../components/ui";
import { useRootData } from "../lib/root-data";
import type { Route } from "./+types/directory";

export function meta({ matches, data }: Route.MetaArgs) {
  const site = (matches[0]?.data as { site?: { name: string } } | undefined)?.site?.name ?? "Switchboard";
  const q = data?.query.q;
  return [
    { title: q ? `"${q}" - MCP servers - ${site}` : `${site} - find, deploy and connect MCP servers` },
    { name: "description", content: "Browse MCP servers, deploy them with your own keys and connect any MCP client." },
  ];
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const params = Object.fromEntries(url.searchParams);
  // Unknown or malformed filters fall back to their defaults instead of failing.
  const clean = Object.fromEntries(
    Object.entries(params).filter(([k, v]) => v !== "" && listQuery.shape[k as keyof typeof listQuery.shape]?.safeParse(v).success),
  );
  // The page numbers its own pages (cursors are the API's).
  const query = listQuery.parse({ ...clean, cursor: undefined, pageSize: DIRECTORY_PAGE_SIZE });
  const result = await listServers(context.db, query);
  return {
    query: {
      q: query.q ?? "",
      category: query.category ?? "",
      type: query.type ?? "",
      sort: query.sort ?? "",
      works: query.works === "1",
      page: query.page,
    },
    ...result,
  };
}

type Query = Route.ComponentProps["loaderData"]["query"];

function href(base: Query, change: Partial<Query>): string {
  const next = { ...base, page: 1, ...change };
  const sp = new URLSearchParams();
  if (next.q) sp.set("q", next.q);
  if (next.category) sp.set("category", next.category);
  if (next.type) sp.set("type", next.type);
  if (next.sort) sp.set("sort", next.sort);
  if (next.works) sp.set("works", "1");
  if (next.page > 1) sp.set("page", String(next.page));
  const s = sp.toString();
  return s ? `?${s}` : "?";
}

const chip = (active: boolean) =>
  `whitespace-nowrap rounded-full border px-3 py-1 text-sm font-medium transition ${
    active
      ? "border-indigo-600 bg-indigo-600 text-white"
      : "border-slate-300 text-slate-700 hover:border-indigo-400 hover:text-indigo-700 dark:border-slate-700 dark:text-slate-300 dark:hover:border-indigo-500 dark:hover:text-indigo-300"
  }`;
const select =
  "rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 focus:outline-2 focus:outline-indigo-500 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100";

export default function Directory({ loaderData }: Route.ComponentProps) {
  const { query, data, pagination } = loaderData;
  const submit = useSubmit();
  const navigation = useNavigation();
  const loading = navigation.state === "loading" && navigation.location?.pathname === "/";
  const autoSubmit = (e: React.ChangeEvent<HTMLSelectElement>) => submit(e.currentTarget.form);
  const signedIn = Boolean(useRootData()?.user);

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6">
      <header className="max-w-3xl">
        <h1 className="text-4xl font-bold tracking-tight">MCP Servers</h1>
        <p className="mt-3 text-lg text-slate-600 dark:text-slate-400">
          Find Model Context Protocol servers, deploy them with your own keys, and connect Claude, Cursor, VS Code or any MCP client to the
          URL you get.
        </p>
        {/* Signed out, the way in (the header has none, as the spec wants). */}
        {!signedIn && (
          <div className="mt-5 flex flex-col gap-3 sm:flex-row sm:items-center">
            <SignInButtons className="shrink-0" />
            <p className="text-sm text-slate-600 dark:text-slate-400">
              {WAY_IN_TEXT.homeInvite}{" "}
              <Link to="/docs" className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                {WAY_IN_TEXT.docsLink}
              </Link>
              .
            </p>
          </div>
        )}
      </header>

      <Form method="get" action="/" role="search" className="mt-8 flex flex-col gap-3 md:flex-row md:items-center">
        {query.category && <input type="hidden" name="category" value={query.category} />}
        {query.works && <input type="hidden" name="works" value="1" />}
        <div className="relative flex-1">
          <Search className="pointer-events-none absolute left-3 top-1/2 h-5 w-5 -translate-y-1/2 text-slate-400" aria-hidden />
          <label htmlFor="q" className="sr-only">
            Search servers
          </label>
          <input
            id="q"
            name="q"
            type="search"
            defaultValue={query.q}
            key={query.q}
            placeholder="Search servers, e.g. postgres, github, browser"
            className="w-full rounded-md border border-slate-300 bg-white py-2.5 pl-10 pr-3 text-slate-900 placeholder:text-slate-400 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500 dark:border-slate-700 dark:bg-slate-900 dark:text-white"
          />
        </div>
        <label className="sr-only" htmlFor="type">
          Type
        </label>
        <select id="type" name="type" defaultValue={query.type} key={`t${query.type}`} onChange={autoSubmit} className={select}>
          <option value="">All types</option>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <label className="sr-only" htmlFor="sort">
          Sort
        </label>
        <select id="sort" name="sort" defaultValue={query.sort} key={`s${query.sort}`} onChange={autoSubmit} className={select}>
          <option value="">{query.q ? SORT_LABELS.relevance : SORT_LABELS.popular}</option>
          {SORTS.filter((s) => s !== "relevance" && (query.q || s !== "popular")).map((s) => (
            <option key={s} value={s}>
              {SORT_LABELS[s]}
            </option>
          ))}
        </select>
        <Button type="submit">Search</Button>
      </Form>

      <nav aria-label="Categories" className="mt-5 flex gap-2 overflow-x-auto pb-2">
        {/* Only entries the platform's own check started and saw list their tools. */}
        <Link
          to={href(query, { works: !query.works })}
          className={`${chip(query.works)} inline-flex items-center gap-1`}
          aria-current={query.works ? "true" : undefined}
        >
          <CheckCircle2 className="h-4 w-4" aria-hidden /> {WORKS_TEXT.filter}
        </Link>
        <span aria-hidden className="border-l border-slate-300 dark:border-slate-700" />
        <Link to={href(query, { category: "" })} className={chip(!query.category)} aria-current={!query.category ? "page" : undefined}>
          All
        </Link>
        {CATEGORIES.map((c) => (
          <Link
            key={c}
            to={href(query, { category: c })}
            className={chip(query.category === c)}
            aria-current={query.category === c ? "page" : undefined}
          >
            {c}
          </Link>
        ))}
      </nav>

      <p className="mt-4 text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
        {pagination.total === 1
          ? "1 server"
          : `${pagination.total.toLocaleString("en-US")}${query.q && pagination.total >= SEARCH_COUNT_CAP ? "+" : ""} servers`}
        {query.q && (
          <>
            {" "}
            for <strong>“{query.q}”</strong>
          </>
        )}
      </p>

      {data.length === 0 ? (
        <div className="mt-8 flex flex-col items-center rounded-xl border border-dashed border-slate-300 p-12 text-center dark:border-slate-700">
          <SearchX className="h-10 w-10 text-slate-400" aria-hidden />
          <p className="mt-4 font-semibold">{CATALOG_TEXT.empty}</p>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{CATALOG_TEXT.emptyHint}</p>
          <Link to="/" className="mt-4 font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            Clear filters
          </Link>
        </div>
      ) : (
        <ul
          className={`mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-3 ${loading ? "opacity-60 transition-opacity" : ""}`}
          aria-busy={loading}
        >
          {data.map((s) => (
            <li key={s.id}>
              <ServerCard server={s} maxTags={3} />
            </li>
          ))}
        </ul>
      )}

      {pagination.totalPages > 1 && (
        <nav aria-label="Pagination" className="mt-10 flex items-center justify-center gap-4">
          {query.page > 1 ? (
            <Link to={href(query, { page: query.page - 1 })} className={buttonClass("secondary", "sm")} rel="prev">
              <ChevronLeft className="h-4 w-4" aria-hidden /> Previous
            </Link>
          ) : (
            <span />
          )}
          <span className="text-sm text-slate-600 dark:text-slate-400">
            Page {query.page} of {pagination.totalPages}
          </span>
          {query.page < pagination.totalPages ? (
            <Link to={href(query, { page: query.page + 1 })} className={buttonClass("secondary", "sm")} rel="next">
              Next <ChevronRight className="h-4 w-4" aria-hidden />
            </Link>
          ) : (
            <span />
          )}
        </nav>
      )}
    </div>
  );
}
