import { History, LogOut, Trash2 } from "~/web/components/icons";
import { data, Link, redirect } from "react-router";
import { ORG_TEXT, inviteInput, orgRename, type OrgDetail } from "../../shared/orgs";
import { BILLING_TEXT, type CurrentSubscription } from "../../shared/billing";
import { OrgMembersDeploy } from "../components/org/OrgMembersDeploy";
import { OrgPlan } from "../components/org/OrgPlan";
import { MemberRow } from "../components/org/OrgMember";
import { InviteForm, Invitations } from "../components/org/OrgInvitations";
import { OrgAction, RenameForm } from "../components/org/OrgSettings";
import { RANK, roleName, type OrgAnswer } from "../components/org/roles";
import { Alert, formLegend, formSection, linkClass } from "../components/ui";
import { field, finish, isEnhanced } from "../lib/actions.server";
import { formMessage } from "../lib/validation";
import type { Route } from "./+types/org";

// One organisation (docs/product.md#organisations): its members and their roles, pending
// invitations, inviting a colleague, leaving, and for its owners changing roles and deleting it.
// Each form posts to this route's action; what a role may not do is not offered, and the API
// refuses it anyway.

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d?.org ? d.org.name : ORG_TEXT.title }, { name: "robots", content: "noindex" }];
}

export async function loader({ context, params }: Route.LoaderArgs) {
  const here = `/orgs/${encodeURIComponent(params.slug)}`;
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(here)}`);
  const r = await context.api<OrgDetail>("GET", `/api/orgs/${encodeURIComponent(params.slug)}`);
  if (!r.ok && r.status === 404) throw data(ORG_TEXT.notFound, { status: 404 });
  // Its plan: its owners read (and change) it.
  const plan =
    r.ok && r.data.role === "owner"
      ? await context.api<CurrentSubscription>("GET", `/api/subscriptions/current?org=${encodeURIComponent(params.slug)}`)
      : null;
  return { org: r.ok ? r.data : null, me: context.viewer.id, loadFailed: !r.ok, plan: plan?.ok ? plan.data : null };
}

type Answer = OrgAnswer;

export async function action({ request, context, params }: Route.ActionArgs) {
  const base = `/api/orgs/${encodeURIComponent(params.slug)}`;
  const here = `/orgs/${encodeURIComponent(params.slug)}`;
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(here)}`);
  const form = await request.formData();
  const intent = field(form, "intent");
  const done = (a: Answer) => (!a.error && !isEnhanced(form) ? redirect(here, 303) : data(a));
  const id = encodeURIComponent(field(form, "id"));
  switch (intent) {
    case "invite": {
      const input = inviteInput.safeParse({ email: field(form, "email"), role: field(form, "role") || "member" });
      if (!input.success) return data({ form: intent, error: formMessage(input.error) } satisfies Answer);
      const r = await context.api<{ message: string }>("POST", `${base}/invitations`, input.data);
      return done(r.ok ? { form: intent, message: r.data.message } : { form: intent, error: r.error });
    }
    case "revoke": {
      const r = await context.api("DELETE", `${base}/invitations/${id}`);
      return done(
        r.ok
          ? { form: `revoke-${field(form, "id")}`, message: ORG_TEXT.invitationCancelled }
          : { form: `revoke-${field(form, "id")}`, error: r.error },
      );
    }
    case "role": {
      const r = await context.api("PUT", `${base}/members/${id}/role`, { role: field(form, "role") });
      return done(
        r.ok
          ? { form: `member-${field(form, "id")}`, message: ORG_TEXT.roleChanged }
          : { form: `member-${field(form, "id")}`, error: r.error },
      );
    }
    case "remove": {
      const r = await context.api("DELETE", `${base}/members/${id}`);
      return done(
        r.ok ? { form: `member-${field(form, "id")}`, message: ORG_TEXT.removed } : { form: `member-${field(form, "id")}`, error: r.error },
      );
    }
    case "rename": {
      const input = orgRename.safeParse({ name: field(form, "name") });
      if (!input.success) return data({ form: intent, error: formMessage(input.error) } satisfies Answer);
      const r = await context.api("PUT", base, input.data);
      return done(r.ok ? { form: intent, message: ORG_TEXT.renamed } : { form: intent, error: r.error });
    }
    case "leave": {
      const r = await context.api("POST", `${base}/leave`);
      return r.ok ? finish(form, "/orgs") : data({ form: intent, error: r.error } satisfies Answer);
    }
    case "settings": {
      const r = await context.api("PUT", `${base}/settings`, { members_deploy: field(form, "members_deploy") === "on" });
      return done(r.ok ? { form: intent, message: ORG_TEXT.settingsSaved } : { form: intent, error: r.error });
    }
    case "plan-checkout": {
      const r = await context.api<{ url?: string }>("POST", `/api/subscriptions/checkout?org=${encodeURIComponent(params.slug)}`, {
        plan: "pro",
        period: "monthly",
      });
      // The checkout (the built-in test page, or Stripe's) takes it from here, and comes back to this page.
      if (r.ok && typeof r.data.url === "string" && /^(https?:\/\/|\/[^/\\])/.test(r.data.url)) return finish(form, r.data.url);
      return data({ form: "plan", error: (!r.ok && r.error) || BILLING_TEXT.checkoutFailed } satisfies Answer);
    }
    case "plan-cancel": {
      const r = await context.api<{ message: string }>("POST", `/api/subscriptions/cancel?org=${encodeURIComponent(params.slug)}`);
      return done(r.ok ? { form: "plan", message: r.data.message } : { form: "plan", error: r.error });
    }
    case "delete": {
      const r = await context.api("DELETE", base);
      return r.ok ? finish(form, "/orgs") : data({ form: intent, error: r.error } satisfies Answer);
    }
    default:
      return data({ form: intent, error: ORG_TEXT.notAllowed } satisfies Answer, { status: 400 });
  }
}

export default function Org({ loaderData }: Route.ComponentProps) {
  const { org, me, loadFailed, plan } = loaderData;
  if (!org)
    return (
      <section className="mx-auto max-w-4xl px-4 py-10">
        <Alert kind="error">{loadFailed ? ORG_TEXT.loadFailed : ORG_TEXT.notFound}</Alert>
      </section>
    );
  const rank = RANK[org.role] ?? 0;
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <p className="text-sm">
        <Link to="/orgs" className={linkClass}>
          {ORG_TEXT.title}
        </Link>
      </p>
      <h1 className="mt-2 break-words text-2xl font-bold">{org.name}</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">
        <span className="font-mono">{org.slug}</span> · {ORG_TEXT.yourRole(roleName(org.role))}
      </p>
      {rank >= 2 && (
        <p className="mt-2">
          <Link to={`/audit?scope=${encodeURIComponent(org.slug)}`} className={`${linkClass} inline-flex items-center gap-1 text-sm`}>
            <History className="h-4 w-4" aria-hidden /> {ORG_TEXT.auditLog}
          </Link>
        </p>
      )}

      <h2 className="mt-8 text-lg font-semibold">
        {ORG_TEXT.members} ({org.members_list.length})
      </h2>
      <ul
        className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 dark:divide-slate-800 dark:border-slate-800"
        data-testid="members"
      >
        {org.members_list.map((m) => (
          <MemberRow key={m.id} m={m} me={me} viewerRole={org.role} />
        ))}
      </ul>

      {rank >= 2 && <InviteForm canInviteOwners={org.role === "owner"} />}
      {rank >= 2 && <Invitations invitations={org.invitations} />}

      <OrgPlan current={plan} owner={org.role === "owner"} />

      <div className={`${formSection} mt-8`}>
        <h2 className={formLegend}>{ORG_TEXT.settings}</h2>
        {rank >= 2 && <RenameForm name={org.name} />}
        {rank >= 2 && <OrgMembersDeploy on={org.members_deploy} />}
        <div className="flex flex-wrap gap-3">
          <OrgAction
            intent="leave"
            label={ORG_TEXT.leave}
            icon={<LogOut className="h-4 w-4" aria-hidden />}
            title={ORG_TEXT.leaveTitle(org.name)}
            text={ORG_TEXT.leaveText}
          />
          {org.role === "owner" && (
            <OrgAction
              intent="delete"
              label={ORG_TEXT.deleteOrg}
              icon={<Trash2 className="h-4 w-4" aria-hidden />}
              title={ORG_TEXT.deleteTitle(org.name)}
              text={ORG_TEXT.deleteText}
            />
          )}
        </div>
      </div>
    </section>
  );
}
