import { Link } from "react-router";
import type { Route } from "./+types/directory";

export function meta({ matches }: Route.MetaArgs) {
  const site = (matches[0]?.data as { site?: { name: string } } | undefined)?.site?.name ?? "Switchboard";
  return [
    { title: `${site} - find, deploy and connect MCP servers` },
    { name: "description", content: "Browse MCP servers, deploy them with your own keys and connect any MCP client." },
  ];
}

// The catalogue issue replaces this placeholder with search, filters and cards.
export default function Directory() {
  return (
    <section className="mx-auto max-w-7xl px-4 py-16 sm:px-6">
      <h1 className="text-4xl font-bold tracking-tight">MCP Servers</h1>
      <p className="mt-4 max-w-2xl text-lg text-slate-600 dark:text-slate-400">
        Find Model Context Protocol servers, deploy them with your own keys, and connect Claude, Cursor, VS Code or any MCP
        client to the URL you get.
      </p>
      <div className="mt-10 rounded-xl border border-dashed border-slate-300 p-10 text-center dark:border-slate-700">
        <p className="font-medium">The directory is being stocked.</p>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          Meanwhile, read <Link to="/docs" className="text-indigo-600 hover:underline dark:text-indigo-400">how to use MCP servers</Link>.
        </p>
      </div>
    </section>
  );
}
