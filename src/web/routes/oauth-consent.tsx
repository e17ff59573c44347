import { Loader2, ShieldCheck, TriangleAlert } from "~/web/components/icons";
import { useEffect, useRef, useState } from "react";
import { data, Link, redirect, useActionData } from "react-router";
import { consentContext, registeredRedirect } from "../../server/features/oauth";
import { OAUTH_TEXT, answerConsent, isAuthorizeQuery, type ConsentCalls, type ConsentView } from "../../shared/oauth";
import { Alert, Button, linkClass } from "../components/ui";
import { field } from "../lib/actions.server";
import { api } from "../lib/api";
import type { Route } from "./+types/oauth-consent";

// The consent page (docs/product.md#oauth-connections): the authorization server sends the
// signed-in owner here with a signed query; Approve or Deny posts that query back untouched and
// the browser follows the answer to the client. Nothing here redirects on its own.

export function meta() {
  return [{ title: OAUTH_TEXT.consentPageTitle }, { name: "robots", content: "noindex" }];
}

// The query is single-use and personal: never cached.
export function headers() {
  return { "Cache-Control": "no-store" };
}

export async function loader({ context, url }: Route.LoaderArgs) {
  const query = url.searchParams;
  if (!context.viewer) {
    // Back through the login page, which resumes the authorization request after signing in.
    throw redirect(isAuthorizeQuery(query) ? `/login?${query.toString()}` : "/login?redirect=/oauth/consent");
  }
  const ctx = await consentContext(context.db, context.config, context.viewer, query);
  const base = { site: context.config.SITE_NAME, username: context.viewer.username };
  if ("error" in ctx) return data({ ...base, consent: null, error: ctx.error }, { status: 400 });
  // Without JavaScript the answer is a redirect to the client: the page's form-action allows it.
  const registered = await registeredRedirect(context.db, query);
  if (registered) context.allowFormAction(registered);
  const consent: ConsentView = {
    clientName: ctx.clientName,
    redirectHost: ctx.redirectHost,
    clientUri: ctx.clientUri,
    deployment: ctx.deployment,
    scopes: ctx.scopes,
  };
  return { ...base, consent, error: null };
}

export default function OAuthConsent({ loaderData }: Route.ComponentProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const { consent, error, site, username } = loaderData;

  if (!consent) {
    return (
      <Card>
        <h1 ref={heading} tabIndex={-1} className="flex items-center gap-2 text-2xl font-bold tracking-tight focus:outline-none">
          <TriangleAlert className="h-6 w-6 text-amber-500" aria-hidden /> {OAUTH_TEXT.consentUnavailable}
        </h1>
        <div className="mt-4">
          <Alert kind="error">{error}</Alert>
        </div>
        <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">{OAUTH_TEXT.errorNothingShared}</p>
        <Link to="/" className={`mt-6 inline-block ${linkClass}`}>
          {OAUTH_TEXT.backHome}
        </Link>
      </Card>
    );
  }
  return <ConsentForm consent={consent} site={site} username={username} heading={heading} />;
}

function Card({ children }: { children: React.ReactNode }) {
  return (
    <section className="mx-auto w-full max-w-lg px-4 py-12">
      <div className="rounded-2xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900/60">
        {children}
      </div>
    </section>
  );
}

type Answer = { redirect?: boolean; url?: string };

/** The browser's own calls to the authorization server (with scripts). */
const browserCalls: ConsentCalls = {
  post: (body) => api<Answer>("/api/auth/oauth2/consent", { body, timeoutMs: 20_000 }),
  authorize: (query) => api<Answer>(`/api/auth/oauth2/authorize?${query}`, { timeoutMs: 20_000 }),
};

// Without JavaScript, Approve and Deny post here: the same answer, sent in-process, and the
// browser is sent on to where the authorization server says (the client's redirect URI).
export async function action({ context, request, url }: Route.ActionArgs) {
  if (!context.viewer)
    throw redirect(isAuthorizeQuery(url.searchParams) ? `/login?${url.searchParams.toString()}` : "/login?redirect=/oauth/consent");
  const form = await request.formData();
  const registered = await registeredRedirect(context.db, url.searchParams);
  if (registered) context.allowFormAction(registered);
  const calls: ConsentCalls = {
    post: (body) => context.api<Answer>("POST", "/api/auth/oauth2/consent", body),
    authorize: (query) => context.api<Answer>("GET", `/api/auth/oauth2/authorize?${query}`),
  };
  const outcome = await answerConsent(
    calls,
    field(form, "accept") === "true",
    url.search.slice(1),
    new URL(context.config.PUBLIC_URL).origin,
  );
  if (outcome.go !== undefined) throw redirect(outcome.go);
  return data({ failure: (outcome.status === 403 && outcome.description) || OAUTH_TEXT.answerFailed }, { status: 400 });
}

function ConsentForm({
  consent,
  site,
  username,
  heading,
}: {
  consent: ConsentView;
  site: string;
  username: string;
  heading: React.RefObject<HTMLHeadingElement | null>;
}) {
  const [busy, setBusy] = useState<"approve" | "deny" | null>(null);
  const posted = useActionData<typeof action>();
  const [failure, setFailure] = useState<string | null>(posted?.failure ?? null);

  // With scripts the browser sends the answer itself; without, the form posts it to the action.
  async function answer(e: React.MouseEvent, accept: boolean) {
    e.preventDefault();
    setBusy(accept ? "approve" : "deny");
    setFailure(null);
    const query = window.location.search.slice(1);
    const outcome = await answerConsent(browserCalls, accept, query, window.location.origin);
    if (outcome.query !== query) window.history.replaceState(null, "", `?${outcome.query}`);
    if (outcome.go !== undefined) return window.location.assign(outcome.go);
    setBusy(null);
    setFailure((outcome.status === 403 && outcome.description) || OAUTH_TEXT.answerFailed);
  }

  const refresh = consent.scopes.includes("offline_access");
  return (
    <Card>
      <p className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
        <ShieldCheck className="h-4 w-4 text-indigo-500" aria-hidden /> {OAUTH_TEXT.consentIntro(site)}
      </p>
      <h1
        ref={heading}
        tabIndex={-1}
        className="mt-3 break-words text-2xl font-bold tracking-tight focus:outline-none"
        data-testid="consent-title"
      >
        {OAUTH_TEXT.consentTitle(consent.clientName, consent.deployment.serverName)}
      </h1>

      <div
        className="mt-6 rounded-xl border-2 border-amber-400 bg-amber-50 p-4 dark:border-amber-600 dark:bg-amber-950/40"
        data-testid="consent-redirect"
      >
        <p className="text-sm font-medium text-amber-900 dark:text-amber-200">{OAUTH_TEXT.sendsTo}</p>
        <p className="mt-1 break-all font-mono text-xl font-bold text-slate-900 dark:text-white" data-testid="consent-redirect-host">
          {consent.redirectHost}
        </p>
        <p className="mt-2 text-xs text-amber-900 dark:text-amber-200">{OAUTH_TEXT.sendsToHint}</p>
      </div>

      <dl className="mt-6 space-y-4 text-sm">
        {consent.clientUri && (
          <div>
            <dt className="font-medium text-slate-600 dark:text-slate-400">{OAUTH_TEXT.appWebsite}</dt>
            <dd className="mt-1 break-all font-mono">{consent.clientUri}</dd>
          </div>
        )}
        <div>
          <dt className="font-medium text-slate-600 dark:text-slate-400">{OAUTH_TEXT.deployment}</dt>
          <dd className="mt-1" data-testid="consent-deployment">
            <span className="font-semibold">{consent.deployment.serverName}</span>
            <code className="mt-1 block break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-950">
              {consent.deployment.url}
            </code>
          </dd>
        </div>
        <div>
          <dt className="font-medium text-slate-600 dark:text-slate-400">{OAUTH_TEXT.mayDo}</dt>
          <dd className="mt-1">
            <ul className="list-disc space-y-1 pl-5">
              <li>{OAUTH_TEXT.mayUse}</li>
              {refresh && <li>{OAUTH_TEXT.mayRefresh}</li>}
            </ul>
          </dd>
        </div>
      </dl>

      <p className="mt-6 text-xs text-slate-600 dark:text-slate-400">{OAUTH_TEXT.signedInAs(username)}</p>
      <div className="mt-3 space-y-3" aria-live="polite">
        {failure && <Alert kind="error">{failure}</Alert>}
      </div>
      <form method="post" className="mt-4 flex flex-wrap justify-end gap-3">
        <Button
          type="submit"
          name="accept"
          value="false"
          variant="secondary"
          onClick={(e) => void answer(e, false)}
          disabled={busy !== null}
        >
          {busy === "deny" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy === "deny" ? OAUTH_TEXT.denying : OAUTH_TEXT.deny}
        </Button>
        <Button type="submit" name="accept" value="true" onClick={(e) => void answer(e, true)} disabled={busy !== null}>
          {busy === "approve" && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy === "approve" ? OAUTH_TEXT.approving : OAUTH_TEXT.approve}
        </Button>
      </form>
    </Card>
  );
}
