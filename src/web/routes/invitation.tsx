import { Check, Loader2, LogIn, X } from "~/web/components/icons";
import { data, Link, redirect } from "react-router";
import { ORG_TEXT, type InvitationInfo } from "../../shared/orgs";
import { Alert, AuthCard, Button, buttonClass, linkClass } from "../components/ui";
import { field, finish } from "../lib/actions.server";
import { Enhanced, useActionForm } from "../lib/forms";
import type { Route } from "./+types/invitation";

// An invitation to an organisation, opened from its e-mail (docs/product.md#organisations). It
// says who invited whom to what before anything is accepted; only the invited address may accept
// or decline, once, before it expires.

export function meta() {
  return [{ title: ORG_TEXT.invitationTitle }, { name: "robots", content: "noindex" }];
}

export async function loader({ context, params }: Route.LoaderArgs) {
  const here = `/invitations/${encodeURIComponent(params.id)}`;
  if (!context.viewer)
    return { signedOut: true as const, login: `/login?redirect=${encodeURIComponent(here)}`, info: null, mine: false, verified: false };
  const r = await context.api<InvitationInfo>("GET", `/api/invitations/${encodeURIComponent(params.id)}`);
  const info = r.ok ? r.data : null;
  return {
    signedOut: false as const,
    login: "",
    info,
    mine: Boolean(info && info.email.toLowerCase() === context.viewer.email.toLowerCase()),
    verified: context.viewer.emailVerified,
  };
}

type Answer = { error?: string; message?: string };

export async function action({ request, context, params }: Route.ActionArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/invitations/${params.id}`)}`);
  const form = await request.formData();
  const decline = field(form, "intent") === "decline";
  const r = await context.api<{ slug?: string; message: string }>(
    "POST",
    `/api/invitations/${encodeURIComponent(params.id)}/${decline ? "decline" : "accept"}`,
  );
  if (!r.ok) return data({ error: r.error } satisfies Answer);
  if (decline) return data({ message: ORG_TEXT.declined } satisfies Answer);
  return finish(form, `/orgs/${encodeURIComponent(r.data.slug ?? "")}`);
}

export default function Invitation({ loaderData }: Route.ComponentProps) {
  const { signedOut, login, info, mine, verified } = loaderData;
  const { fetcher, answer, busy } = useActionForm<Answer>("invitation");
  if (signedOut)
    return (
      <AuthCard title={ORG_TEXT.invitationTitle}>
        <p className="text-slate-600 dark:text-slate-400">{ORG_TEXT.loginToAccept}.</p>
        <Link to={login} className={`${buttonClass("primary", "md", { block: true })} mt-4`}>
          <LogIn className="h-4 w-4" aria-hidden /> {ORG_TEXT.loginToAccept}
        </Link>
      </AuthCard>
    );
  if (!info || !info.valid || answer?.message)
    return (
      <AuthCard title={ORG_TEXT.invitationTitle}>
        {answer?.message ? <p role="status">{answer.message}</p> : <Alert kind="error">{ORG_TEXT.invitationGone}</Alert>}
        <p className="mt-4">
          <Link to="/orgs" className={linkClass}>
            {ORG_TEXT.title}
          </Link>
        </p>
      </AuthCard>
    );
  const role = ORG_TEXT.roleNames[info.role] ?? info.role;
  return (
    <AuthCard title={ORG_TEXT.invitationTitle}>
      <p data-testid="invitation-text">{ORG_TEXT.invitationFor(info.inviter || "Someone", info.org.name, role)}</p>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        <span className="font-mono">{info.org.slug}</span> · {ORG_TEXT.roleHints[info.role]} ·{" "}
        {ORG_TEXT.expires(info.expires_at.slice(0, 10))}
      </p>
      {!mine && (
        <div className="mt-4">
          <Alert kind="warning">{ORG_TEXT.invitationOther(info.email)}</Alert>
        </div>
      )}
      {mine && !verified && (
        <div className="mt-4">
          <Alert kind="warning">{ORG_TEXT.verifyToAccept}</Alert>
        </div>
      )}
      {answer?.error && (
        <div className="mt-4">
          <Alert kind="error">{answer.error}</Alert>
        </div>
      )}
      {mine && (
        <fetcher.Form method="post" className="mt-6 flex flex-wrap gap-3">
          <Enhanced />
          <Button type="submit" name="intent" value="accept" disabled={busy || !verified}>
            {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Check className="h-4 w-4" aria-hidden />}
            {busy ? ORG_TEXT.accepting : ORG_TEXT.accept}
          </Button>
          <Button type="submit" name="intent" value="decline" variant="secondary" disabled={busy}>
            <X className="h-4 w-4" aria-hidden /> {ORG_TEXT.decline}
          </Button>
        </fetcher.Form>
      )}
    </AuthCard>
  );
}
