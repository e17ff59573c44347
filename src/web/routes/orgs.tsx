import { Loader2, Network } from "~/web/components/icons";
import { data, Link, redirect } from "react-router";
import { ORG_TEXT, orgInput, type OrgView } from "../../shared/orgs";
import { Alert, Button, Field, formLegend, formSection, inputClass, linkClass } from "../components/ui";
import { field, finish } from "../lib/actions.server";
import { Enhanced, useActionForm } from "../lib/forms";
import { formMessage } from "../lib/validation";
import type { Route } from "./+types/orgs";

// Organisations (docs/product.md#organisations): the ones the viewer is in, with their role, and
// a form to create one (name and slug; the slug is a namespace as a username is).

export function meta() {
  return [{ title: ORG_TEXT.title }, { name: "robots", content: "noindex" }];
}

export async function loader({ context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/orgs");
  const r = await context.api<OrgView[]>("GET", "/api/orgs");
  return { orgs: r.ok ? r.data : [], loadFailed: !r.ok, verified: context.viewer.emailVerified };
}

type Answer = { error?: string; field?: string };

export async function action({ request, context }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/orgs");
  const form = await request.formData();
  const input = orgInput.safeParse({ name: field(form, "name"), slug: field(form, "slug").trim().toLowerCase() });
  if (!input.success) return data({ error: formMessage(input.error) } satisfies Answer);
  const r = await context.api<OrgView>("POST", "/api/orgs", input.data);
  if (!r.ok) return data({ error: r.error ?? ORG_TEXT.loadFailed } satisfies Answer);
  return finish(form, `/orgs/${encodeURIComponent(r.data.slug)}`);
}

export default function Orgs({ loaderData }: Route.ComponentProps) {
  const { orgs, loadFailed, verified } = loaderData;
  const { fetcher, answer, busy } = useActionForm<Answer>("create-org");
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <h1 className="flex items-center gap-2 text-2xl font-bold">
        <Network className="h-6 w-6 text-indigo-500" aria-hidden /> {ORG_TEXT.title}
      </h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">{ORG_TEXT.intro}</p>

      {loadFailed && (
        <div className="mt-6">
          <Alert kind="error">{ORG_TEXT.loadFailed}</Alert>
        </div>
      )}
      <ul className="mt-6 space-y-3" data-testid="orgs">
        {orgs.map((o) => (
          <li
            key={o.id}
            className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-slate-200 p-4 dark:border-slate-800"
            data-testid="org"
          >
            <div className="min-w-0">
              <Link to={`/orgs/${encodeURIComponent(o.slug)}`} className={`${linkClass} break-all text-lg`}>
                {o.name}
              </Link>
              <p className="text-sm text-slate-600 dark:text-slate-400">
                <span className="font-mono">{o.slug}</span> · {ORG_TEXT.roleNames[o.role] ?? o.role} · {o.members}{" "}
                {o.members === 1 ? "member" : "members"}
              </p>
            </div>
          </li>
        ))}
      </ul>
      {!loadFailed && orgs.length === 0 && <p className="mt-6 text-slate-600 dark:text-slate-400">{ORG_TEXT.none}</p>}

      <fetcher.Form method="post" className={`${formSection} mt-8`} aria-labelledby="new-org">
        <h2 id="new-org" className={formLegend}>
          {ORG_TEXT.create}
        </h2>
        <Enhanced />
        {!verified && <Alert kind="warning">{ORG_TEXT.mustVerify}</Alert>}
        <Field id="org-name" label={ORG_TEXT.nameLabel} hint={ORG_TEXT.nameHint}>
          <input
            id="org-name"
            name="name"
            required
            maxLength={80}
            className={inputClass}
            autoComplete="organization"
            aria-describedby="org-name-hint"
          />
        </Field>
        <Field id="org-slug" label={ORG_TEXT.slugLabel} hint={ORG_TEXT.slugHint}>
          <input
            id="org-slug"
            name="slug"
            required
            minLength={3}
            maxLength={39}
            pattern="[a-z0-9][a-z0-9\-]{2,38}"
            className={`${inputClass} font-mono`}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            aria-describedby="org-slug-hint"
          />
        </Field>
        {answer?.error && <Alert kind="error">{answer.error}</Alert>}
        <Button type="submit" disabled={busy || !verified}>
          {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Network className="h-4 w-4" aria-hidden />}
          {busy ? ORG_TEXT.creating : ORG_TEXT.create}
        </Button>
      </fetcher.Form>
    </section>
  );
}
