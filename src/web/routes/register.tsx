import { Loader2, MailCheck } from "lucide-react";
import { useState } from "react";
import { Link, redirect, useSearchParams } from "react-router";
import { AUTH_TEXT, LOGIN_TIMEOUT_MS, MAX_PASSWORD, MIN_PASSWORD } from "../../shared/auth";
import { authorizeQueryOf, isAuthorizeQuery, resumeAuthorizeUrl } from "../../shared/oauth";
import { Divider, GitHubButton } from "../components/GitHubButton";
import { Alert, AuthCard, Field, Button, inputClass, linkClass } from "../components/ui";
import { api } from "../lib/api";
import { registerErrorText } from "../lib/auth-errors";
import type { Route } from "./+types/register";

export function meta({ data }: Route.MetaArgs) {
  return [{ title: data ? AUTH_TEXT.registerTitle(data.site) : "Register" }];
}

export function loader({ context, request }: Route.LoaderArgs) {
  const query = new URL(request.url).searchParams;
  // Reached from an OAuth authorization request (through the login page): signed in, it goes on.
  if (context.viewer) throw redirect(isAuthorizeQuery(query) ? resumeAuthorizeUrl(query) : "/");
  return { site: context.config.SITE_NAME, github: context.githubEnabled };
}

export default function Register({ loaderData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(params.get("error") ? AUTH_TEXT.githubRegisterFailed : null);
  // An OAuth request in progress travels with the links, so signing in afterwards resumes it.
  const oauthQuery = authorizeQueryOf(params);
  const loginLink = oauthQuery ? `/login?${oauthQuery}` : "/login";

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    if (!email || !password) return setError(AUTH_TEXT.bothRequired);
    if (password.length < MIN_PASSWORD) return setError(AUTH_TEXT.passwordTooShort);
    if (password.length > MAX_PASSWORD) return setError(AUTH_TEXT.passwordTooLong);
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return setError(AUTH_TEXT.invalidEmail);
    setBusy(true);
    setError(null);
    const username = email.split("@")[0] ?? email;
    const r = await api("/api/auth/sign-up/email", {
      body: { email, password, name: username, callbackURL: "/login" },
      timeoutMs: LOGIN_TIMEOUT_MS,
    });
    setBusy(false);
    if (r.ok) setDone(true);
    else setError(registerErrorText(r));
  }

  if (done) {
    return (
      <AuthCard title={AUTH_TEXT.checkEmail}>
        <div className="flex flex-col items-center text-center">
          <MailCheck className="h-12 w-12 text-indigo-500" aria-hidden />
          <p className="mt-4 text-slate-700 dark:text-slate-300">{AUTH_TEXT.checkEmailText}</p>
          <Link to={loginLink} className={`mt-6 ${linkClass}`}>
            {AUTH_TEXT.returnToLogin}
          </Link>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={AUTH_TEXT.registerTitle(loaderData.site)}>
      <GitHubButton enabled={loaderData.github} mode="register" onError={setError} disabled={busy} oauthQuery={oauthQuery} />
      <Divider />
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        {error && <Alert kind="error">{error}</Alert>}
        <Field id="email" label="Email">
          <input id="email" name="email" type="email" autoComplete="email" className={inputClass} disabled={busy} />
        </Field>
        <Field id="password" label="Password" hint={AUTH_TEXT.passwordHint}>
          <input id="password" name="password" type="password" autoComplete="new-password" aria-describedby="password-hint" className={inputClass} disabled={busy} />
        </Field>
        <Button type="submit" size="lg" block disabled={busy}>
          {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy ? AUTH_TEXT.creatingAccount : AUTH_TEXT.createAccount}
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-600 dark:text-slate-400">
        Already have an account?{" "}
        <Link to={loginLink} className={linkClass}>
          Log in
        </Link>
      </p>
    </AuthCard>
  );
}
