import type { CatalogServer } from "~/shared/catalog";
import { ServerCard } from "../ServerCard";

// A catalogue entry's Related Servers, at the foot of its page.

export function RelatedServers({ related }: { related: CatalogServer[] }) {
  return (
    <section className="mt-10" aria-labelledby="related">
      <h2 id="related" className="text-xl font-semibold">
        Related Servers
      </h2>
      {related.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">No related servers yet.</p>
      ) : (
        <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {related.map((s) => (
            <li key={s.id}>
              <ServerCard server={s} maxTags={2} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
