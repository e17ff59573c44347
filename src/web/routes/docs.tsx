import { assistantExample, pythonExample, sseAssistantExample, typescriptExample } from "../components/docs/client-examples";
import { DOC_SECTIONS, DocsArticle } from "../components/docs/DocsArticle";
import { highlight } from "../lib/highlight.server";
import type { Route } from "./+types/docs";

export function meta({ matches }: Route.MetaArgs) {
  const site = (matches[0]?.data as { site?: { name: string } } | undefined)?.site?.name ?? "Switchboard";
  return [
    { title: `Documentation - ${site}` },
    {
      name: "description",
      content: "What MCP is, how to connect AI assistants, code editors and your own code to hosted MCP servers, and best practices.",
    },
  ];
}

export function loader({ context }: Route.LoaderArgs) {
  const base = context.config.PUBLIC_URL;
  return {
    base,
    site: context.config.SITE_NAME,
    code: {
      assistant: highlight(assistantExample(base), "bash"),
      python: highlight(pythonExample(base), "python"),
      typescript: highlight(typescriptExample(base), "typescript"),
      sse: highlight(sseAssistantExample(base), "bash"),
    },
  };
}

export default function Docs({ loaderData }: Route.ComponentProps) {
  const { base, code, site } = loaderData;
  return (
    <div className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:px-6 lg:grid-cols-[14rem_1fr]">
      <nav aria-label="On this page" className="hidden lg:block">
        <div className="sticky top-24">
          <p className="text-xs font-semibold uppercase tracking-wider text-slate-600 dark:text-slate-400">On this page</p>
          <ul className="mt-3 space-y-2 text-sm">
            {DOC_SECTIONS.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`} className="text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400">
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </div>
      </nav>
      <DocsArticle base={base} site={site} code={code} />
    </div>
  );
}
