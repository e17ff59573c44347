import { History, Loader2, LogOut, Pencil, Send, Trash2 } from "~/web/components/icons";
import { data, Link, redirect, useFetcher } from "react-router";
import { ORG_ROLES, ORG_TEXT, inviteInput, orgRename, type InvitationView, type MemberView, type OrgDetail } from "../../shared/orgs";
import { BILLING_TEXT, type CurrentSubscription } from "../../shared/billing";
import { ConfirmButton } from "../components/ConfirmButton";
import { OrgMembersDeploy } from "../components/OrgMembersDeploy";
import { OrgPlan } from "../components/OrgPlan";
import { Alert, Button, Field, formLegend, formSection, inputClass, linkClass } from "../components/ui";
import { field, finish, isEnhanced } from "../lib/actions.server";
import { Enhanced, useActionForm } from "../lib/forms";
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

type Answer = { form: string; error?: string; message?: string };

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

const RANK: Record<string, number> = { member: 1, admin: 2, owner: 3 };
const roleName = (r: string) => ORG_TEXT.roleNames[r] ?? r;
const dateOf = (iso: string) => new Date(iso).toISOString().slice(0, 10);

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

function MemberRow({ m, me, viewerRole }: { m: MemberView; me: string; viewerRole: string }) {
  const fetcher = useFetcher<Answer>();
  const key = `member-${m.id}`;
  const answer = fetcher.data?.form === key ? fetcher.data : undefined;
  const busy = fetcher.state !== "idle";
  const rank = RANK[viewerRole] ?? 0;
  const canRemove = m.user_id !== me && rank >= 2 && (m.role !== "owner" || viewerRole === "owner");
  const label = m.name || m.username;
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 p-4" data-testid="member">
      <div className="min-w-0">
        <p className="break-words font-medium">
          {label} {m.username && <span className="font-mono text-sm text-slate-600 dark:text-slate-400">@{m.username}</span>}
          {m.user_id === me && <span className="text-sm text-slate-600 dark:text-slate-400"> ({ORG_TEXT.you})</span>}
        </p>
        <p className="break-words text-sm text-slate-600 dark:text-slate-400">
          {m.email && <span className="break-all">{m.email} · </span>}
          <span data-testid="member-role">{roleName(m.role)}</span> · {ORG_TEXT.joined(dateOf(m.joined_at))}
        </p>
        {answer?.error && <p className="mt-1 text-sm text-red-700 dark:text-red-400">{answer.error}</p>}
        {answer?.message && !answer.error && (
          <p role="status" className="mt-1 text-sm text-green-700 dark:text-green-400">
            {answer.message}
          </p>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {viewerRole === "owner" && (
          <fetcher.Form method="post" className="flex items-center gap-2">
            <Enhanced />
            <input type="hidden" name="intent" value="role" />
            <input type="hidden" name="id" value={m.id} />
            <label htmlFor={`role-${m.id}`} className="sr-only">
              {ORG_TEXT.roleLabel} {label}
            </label>
            <select id={`role-${m.id}`} name="role" defaultValue={m.role} className={`${inputClass} w-auto py-1`}>
              {ORG_ROLES.map((r) => (
                <option key={r} value={r}>
                  {roleName(r)}
                </option>
              ))}
            </select>
            <Button type="submit" variant="secondary" size="sm" disabled={busy} className="whitespace-nowrap">
              {ORG_TEXT.changeRole}
              <span className="sr-only"> {label}</span>
            </Button>
          </fetcher.Form>
        )}
        {canRemove && (
          <fetcher.Form method="post">
            <Enhanced />
            <input type="hidden" name="intent" value="remove" />
            <input type="hidden" name="id" value={m.id} />
            <ConfirmButton
              label={
                <>
                  <Trash2 className="h-4 w-4" aria-hidden /> {ORG_TEXT.remove}
                  <span className="sr-only"> {label}</span>
                </>
              }
              busy={busy}
              title={ORG_TEXT.removeTitle(label)}
              description={ORG_TEXT.removeText}
              confirmLabel={ORG_TEXT.remove}
              cancelLabel={ORG_TEXT.cancel}
            />
          </fetcher.Form>
        )}
      </div>
    </li>
  );
}

function RenameForm({ name }: { name: string }) {
  const { fetcher, answer, busy } = useActionForm<Answer>("rename");
  const mine = answer?.form === "rename" ? answer : undefined;
  return (
    <fetcher.Form method="post" className="space-y-3">
      <Enhanced />
      <input type="hidden" name="intent" value="rename" />
      <Field id="org-rename" label={ORG_TEXT.nameLabel} hint={ORG_TEXT.slugStays}>
        <input
          id="org-rename"
          name="name"
          required
          maxLength={80}
          defaultValue={name}
          className={inputClass}
          aria-describedby="org-rename-hint"
        />
      </Field>
      {mine?.error && <Alert kind="error">{mine.error}</Alert>}
      {mine?.message && !mine.error && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {mine.message}
        </p>
      )}
      <Button type="submit" variant="secondary" disabled={busy}>
        {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Pencil className="h-4 w-4" aria-hidden />}
        {busy ? ORG_TEXT.renaming : ORG_TEXT.rename}
      </Button>
    </fetcher.Form>
  );
}

function InviteForm({ canInviteOwners }: { canInviteOwners: boolean }) {
  const { fetcher, answer, busy } = useActionForm<Answer>("invite");
  const mine = answer?.form === "invite" ? answer : undefined;
  return (
    <fetcher.Form method="post" className={`${formSection} mt-8`} aria-labelledby="invite-title" key={mine?.message ?? "invite"}>
      <h2 id="invite-title" className={formLegend}>
        {ORG_TEXT.inviteTitle}
      </h2>
      <Enhanced />
      <input type="hidden" name="intent" value="invite" />
      <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <Field id="invite-email" label={ORG_TEXT.emailLabel}>
          <input id="invite-email" name="email" type="email" required maxLength={254} className={inputClass} autoComplete="off" />
        </Field>
        <Field id="invite-role" label={ORG_TEXT.roleLabel}>
          <select id="invite-role" name="role" defaultValue="member" className={inputClass} aria-describedby="invite-role-hint">
            {ORG_ROLES.filter((r) => r !== "owner" || canInviteOwners).map((r) => (
              <option key={r} value={r}>
                {roleName(r)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <ul id="invite-role-hint" className="space-y-0.5 text-sm text-slate-600 dark:text-slate-400">
        {ORG_ROLES.filter((r) => r !== "owner" || canInviteOwners).map((r) => (
          <li key={r}>
            <span className="font-medium">{roleName(r)}</span>: {ORG_TEXT.roleHints[r]}
          </li>
        ))}
      </ul>
      {mine?.error && <Alert kind="error">{mine.error}</Alert>}
      {mine?.message && !mine.error && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {mine.message}
        </p>
      )}
      <Button type="submit" disabled={busy}>
        {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Send className="h-4 w-4" aria-hidden />}
        {busy ? ORG_TEXT.inviting : ORG_TEXT.invite}
      </Button>
    </fetcher.Form>
  );
}

function Invitations({ invitations }: { invitations: InvitationView[] }) {
  return (
    <>
      <h2 className="mt-8 text-lg font-semibold">{ORG_TEXT.invitations}</h2>
      {invitations.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{ORG_TEXT.noInvitations}</p>
      ) : (
        <ul
          className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 dark:divide-slate-800 dark:border-slate-800"
          data-testid="invitations"
        >
          {invitations.map((i) => (
            <InvitationRow key={i.id} i={i} />
          ))}
        </ul>
      )}
    </>
  );
}

function InvitationRow({ i }: { i: InvitationView }) {
  const fetcher = useFetcher<Answer>();
  const busy = fetcher.state !== "idle";
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 p-4" data-testid="invitation">
      <div className="min-w-0">
        <p className="break-all font-medium">{i.email}</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {roleName(i.role)} · {ORG_TEXT.expires(dateOf(i.expires_at))}
        </p>
        {fetcher.data?.error && <p className="mt-1 text-sm text-red-700 dark:text-red-400">{fetcher.data.error}</p>}
      </div>
      <fetcher.Form method="post">
        <Enhanced />
        <input type="hidden" name="intent" value="revoke" />
        <input type="hidden" name="id" value={i.id} />
        <ConfirmButton
          label={
            <>
              <Trash2 className="h-4 w-4" aria-hidden /> {ORG_TEXT.cancelInvitation}
              <span className="sr-only"> {i.email}</span>
            </>
          }
          busy={busy}
          title={ORG_TEXT.revokeTitle(i.email)}
          description={ORG_TEXT.revokeText}
          confirmLabel={ORG_TEXT.cancelInvitation}
          cancelLabel={ORG_TEXT.cancel}
        />
      </fetcher.Form>
    </li>
  );
}

function OrgAction({
  intent,
  label,
  icon,
  title,
  text,
}: {
  intent: string;
  label: string;
  icon: React.ReactNode;
  title: string;
  text: string;
}) {
  const { fetcher, answer, busy } = useActionForm<Answer>(intent);
  const mine = answer?.form === intent ? answer : undefined;
  return (
    <fetcher.Form method="post" className="space-y-2">
      <Enhanced />
      <input type="hidden" name="intent" value={intent} />
      <ConfirmButton
        label={
          <>
            {icon} {label}
          </>
        }
        busy={busy}
        title={title}
        description={text}
        confirmLabel={label}
        cancelLabel={ORG_TEXT.cancel}
        open={Boolean(mine?.error)}
      />
      {mine?.error && <Alert kind="error">{mine.error}</Alert>}
    </fetcher.Form>
  );
}
