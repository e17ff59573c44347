import { Loader2, Send, Trash2 } from "~/web/components/icons";
import { useFetcher } from "react-router";
import { ORG_ROLES, ORG_TEXT, type InvitationView } from "../../../shared/orgs";
import { ConfirmButton } from "../ConfirmButton";
import { Alert, Button, Field, formLegend, formSection, inputClass } from "../ui";
import { Enhanced, useActionForm } from "../../lib/forms";
import { roleName, dateOf, type OrgAnswer } from "./roles";

// Inviting a colleague by e-mail, and the invitations not yet answered (revoked by an admin).

export function InviteForm({ canInviteOwners }: { canInviteOwners: boolean }) {
  const { fetcher, answer, busy } = useActionForm<OrgAnswer>("invite");
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

export function Invitations({ invitations }: { invitations: InvitationView[] }) {
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
  const fetcher = useFetcher<OrgAnswer>();
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
