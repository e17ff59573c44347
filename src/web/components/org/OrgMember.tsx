import { Trash2 } from "~/web/components/icons";
import { useFetcher } from "react-router";
import { ORG_ROLES, ORG_TEXT, type MemberView } from "../../../shared/orgs";
import { ConfirmButton } from "../ConfirmButton";
import { Button, inputClass } from "../ui";
import { Enhanced } from "../../lib/forms";
import { RANK, roleName, dateOf, type OrgAnswer } from "./roles";

// A member's row on the organisation's page: their role (changed by those who may) and Remove.

export function MemberRow({ m, me, viewerRole }: { m: MemberView; me: string; viewerRole: string }) {
  const fetcher = useFetcher<OrgAnswer>();
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
