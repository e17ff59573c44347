import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Loader2 } from "~/web/components/icons";
import { useState } from "react";
import { data, Link, redirect, useActionData, useSearchParams } from "react-router";
import { AUTH_TEXT, LOGIN_TIMEOUT_MS, loginForm, loginPath, withRedirect } from "../../shared/auth";
import { registeredRedirect } from "../../server/features/oauth";
import { authorizeQueryOf, isAuthorizeQuery, resumeAuthorizeUrl, wantsFreshLogin } from "../../shared/oauth";
import { Divider, GitHubButton } from "../components/GitHubButton";
import { AuthCard, Button, inputClass, linkClass } from "../components/ui";
import { cookieHeaders, field } from "../lib/actions.server";
import { api, safeRedirect } from "../lib/api";
import { loginErrorText } from "../lib/auth-errors";
import { FormError, FormField } from "../lib/forms";
import { githubSignIn } from "../lib/github.server";
import type { Route } from "./+types/login";

export function meta({ data }: Route.MetaArgs) {
  return [{ title: data ? AUTH_TEXT.loginTitle(data.site) : "Log in" }];
}

export async function loader({ context, url }: Route.LoaderArgs) {
  const query = url.searchParams;
  // Reached from an OAuth authorization request: once signed in, that request goes on.
  const oauth = isAuthorizeQuery(query);
  if (context.viewer && oauth && !wantsFreshLogin(query)) throw redirect(resumeAuthorizeUrl(query));
  if (context.viewer && !oauth) throw redirect(safeRedirect(query.get("redirect")));
  await allowClientRedirect(context, query);
  return { site: context.config.SITE_NAME, github: context.githubEnabled };
}

/**
 * Signing in without JavaScript during an authorization request ends in a redirect chain that
 * may reach the client itself (consent given before): the page's form-action allows its
 * registered redirect URI, and nothing else.
 */
async function allowClientRedirect(context: Route.LoaderArgs["context"], query: URLSearchParams) {
  if (!isAuthorizeQuery(query)) return;
  const target = await registeredRedirect(context.db, query);
  if (target) context.allowFormAction(target);
}

/** Where to go after signing in: the OAuth request this page was reached from, or `redirect` (a path of this site). */
function afterSignIn(params: URLSearchParams): string {
  return isAuthorizeQuery(params) ? resumeAuthorizeUrl(params) : safeRedirect(params.get("redirect"));
}

type Answer = { form?: string; result?: SubmissionResult<string[]>; redirectTo?: string };

// Signs in through the API (its rate limits included) and hands the session cookie to the browser.
export async function action({ request, context, url }: Route.ActionArgs) {
  const form = await request.formData();
  const query = url.searchParams;
  await allowClientRedirect(context, query);
  if (field(form, "intent") === "github") return githubSignIn(context, form, "login", authorizeQueryOf(query));
  const submission = parseWithZod(form, { schema: loginForm });
  if (submission.status !== "success") return { form: "login", result: submission.reply({ hideFields: ["password"] }) } satisfies Answer;
  const { email, password } = submission.value;
  // An unconfirmed account gets a fresh confirmation link, which comes back to where this sign-in was going.
  const r = await context.api(
    "POST",
    "/api/auth/sign-in/email",
    { email, password, rememberMe: true, callbackURL: loginPath(query.get("redirect")) },
    { timeoutMs: LOGIN_TIMEOUT_MS },
  );
  if (!r.ok)
    return data(
      { form: "login", result: submission.reply({ formErrors: [loginErrorText(r)], hideFields: ["password"] }) } satisfies Answer,
      { headers: cookieHeaders(r) },
    );
  // Posted without JavaScript: straight on (the page's scripts, when they run, sign in themselves).
  return redirect(afterSignIn(query), { headers: cookieHeaders(r) });
}

// The page's own state comes from the browser's sign-in: nothing to read again after a post.
export function shouldRevalidate() {
  return false;
}

export default function Login({ loaderData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  // Without JavaScript the action answers; with it, the browser signs in itself (its 20 s
  // timeout included), with the same schema and the same texts for what the API answers.
  const posted = useActionData<typeof action>();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [form, fields] = useForm({
    id: "login",
    lastResult: posted && "result" in posted ? posted.result : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: loginForm }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      setBusy(true);
      setFailure(null);
      const { email, password } = submission.value;
      const r = await api("/api/auth/sign-in/email", {
        body: { email, password, rememberMe: true, callbackURL: loginPath(params.get("redirect")) },
        timeoutMs: LOGIN_TIMEOUT_MS,
      });
      if (r.ok) {
        // The spec's pause before leaving (about 300 ms); a sign-in changes what every page shows.
        const target = afterSignIn(params);
        setTimeout(() => window.location.assign(target), 300);
        return;
      }
      setBusy(false);
      setFailure(loginErrorText(r));
    },
  });
  const error = failure ?? form.errors?.[0] ?? (params.get("error") ? AUTH_TEXT.githubLoginFailed : null);
  const oauthQuery = authorizeQueryOf(params);
  return (
    <AuthCard title={AUTH_TEXT.loginTitle(loaderData.site)}>
      <GitHubButton enabled={loaderData.github} disabled={busy} />
      <Divider />
      <form method="post" {...getFormProps(form)} className="space-y-4">
        <FormError form={form} text={error} />
        <FormField meta={fields.email} label="Email">
          <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" className={inputClass} disabled={busy} />
        </FormField>
        <FormField meta={fields.password} label="Password">
          <input
            {...getInputProps(fields.password, { type: "password" })}
            autoComplete="current-password"
            className={inputClass}
            disabled={busy}
          />
        </FormField>
        <div className="text-right text-sm">
          <Link to="/forgot-password" className={linkClass}>
            {AUTH_TEXT.forgotPassword}
          </Link>
        </div>
        <Button type="submit" size="lg" block disabled={busy}>
          {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy ? AUTH_TEXT.loggingIn : AUTH_TEXT.logIn}
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-600 dark:text-slate-400">
        Don't have an account?{" "}
        <Link to={oauthQuery ? `/register?${oauthQuery}` : withRedirect("/register", params.get("redirect"))} className={linkClass}>
          {AUTH_TEXT.signUp}
        </Link>
      </p>
    </AuthCard>
  );
}
