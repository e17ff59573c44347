import { Building2, User } from "~/web/components/icons";
import { Link } from "react-router";
import { ORG_TEXT } from "../../shared/orgs";

// The owner switch (docs/product.md#organisations): on a server's Deployment panel, whose deployment
// of this server the panel is about; on Connections and Toolsets, for whom the form makes one. The
// viewer's own or one of their organisations'. Plain links (`?as=slug`): it works before and
// without scripts, and a URL names the choice.

export interface OwnerChoice {
  /** the organisation the page is about (its slug), "" for the viewer's own */
  as: string;
  /** the viewer's organisations, with their role in each */
  orgs: { slug: string; name: string; role: string; manage: boolean }[];
}

export function OwnerSwitch({
  choice,
  path,
  label = ORG_TEXT.deployAs,
  hint = ORG_TEXT.deployAsHint,
}: {
  choice: OwnerChoice;
  path: string;
  label?: string;
  hint?: string;
}) {
  if (choice.orgs.length === 0) return null;
  const owners = [{ slug: "", name: ORG_TEXT.personal }, ...choice.orgs];
  return (
    <nav aria-label={label} className="mt-3" data-testid="owner-switch">
      <p id="owner-switch-label" className="text-xs font-medium text-slate-600 dark:text-slate-400">
        {label}
      </p>
      <ul className="mt-1 flex flex-wrap gap-1" aria-describedby="owner-switch-hint">
        {owners.map((o) => {
          const current = o.slug === choice.as;
          return (
            <li key={o.slug || "personal"}>
              <Link
                to={o.slug ? `${path}?as=${encodeURIComponent(o.slug)}` : path}
                aria-current={current ? "true" : undefined}
                preventScrollReset
                className={`inline-flex min-h-9 items-center gap-1.5 rounded-md border px-2.5 py-1 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
                  current
                    ? "border-indigo-600 bg-indigo-50 font-medium text-indigo-900 dark:border-indigo-400 dark:bg-indigo-950 dark:text-indigo-100"
                    : "border-slate-300 text-slate-700 hover:bg-slate-50 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-900"
                }`}
              >
                {o.slug ? <Building2 className="h-4 w-4" aria-hidden /> : <User className="h-4 w-4" aria-hidden />}
                {o.name}
              </Link>
            </li>
          );
        })}
      </ul>
      <p id="owner-switch-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {hint}
      </p>
    </nav>
  );
}
