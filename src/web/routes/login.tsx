import { Loader2 } from "lucide-react";
import { useState } from "react";
import { Link, redirect, useSearchParams } from "react-router";
import { AUTH_TEXT, LOGIN_TIMEOUT_MS } from "../../shared/auth";
import { authorizeQueryOf, isAuthorizeQuery, resumeAuthorizeUrl, wantsFreshLogin } from "../../shared/oauth";
import { Divider, GitHubButton } from "../components/GitHubButton";
import { Alert, AuthCard, Field, Button, inputClass, linkClass } from "../components/ui";
import { api, safeRedirect } from "../lib/api";
import { loginErrorText } from "../lib/auth-errors";
import type { Route } from "./+types/login";

export function meta({ data }: Route.MetaArgs) {
  return [{ title: data ? AUTH_TEXT.loginTitle(data.site) : "Log in" }];
}

export function loader({ context, request }: Route.LoaderArgs) {
  const query = new URL(request.url).searchParams;
  // Reached from an OAuth authorization request: once signed in, that request goes on.
  const oauth = isAuthorizeQuery(query);
  if (context.viewer && oauth && !wantsFreshLogin(query)) throw redirect(resumeAuthorizeUrl(query));
  if (context.viewer && !oauth) throw redirect(safeRedirect(query.get("redirect")));
  return { site: context.config.SITE_NAME, github: context.githubEnabled };
}

/** Where to go after signing in: the OAuth request this page was reached from, or `redirect`. */
function afterSignIn(params: URLSearchParams): string {
  return isAuthorizeQuery(params) ? resumeAuthorizeUrl(params) : safeRedirect(params.get("redirect"));
}

export default function Login({ loaderData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(params.get("error") ? AUTH_TEXT.githubLoginFailed : null);

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    if (!email || !password) {
      setError(AUTH_TEXT.bothRequired);
      return;
    }
    setBusy(true);
    setError(null);
    const r = await api("/api/auth/sign-in/email", { body: { email, password, rememberMe: true }, timeoutMs: LOGIN_TIMEOUT_MS });
    if (r.ok) {
      const target = afterSignIn(params);
      setTimeout(() => window.location.assign(target), 300);
      return;
    }
    setBusy(false);
    setError(loginErrorText(r));
  }

  const oauthQuery = authorizeQueryOf(params);
  return (
    <AuthCard title={AUTH_TEXT.loginTitle(loaderData.site)}>
      <GitHubButton enabled={loaderData.github} mode="login" onError={setError} disabled={busy} oauthQuery={oauthQuery} />
      <Divider />
      <form onSubmit={onSubmit} noValidate className="space-y-4" aria-describedby={error ? "login-error" : undefined}>
        {error && (
          <div id="login-error">
            <Alert kind="error">{error}</Alert>
          </div>
        )}
        <Field id="email" label="Email">
          <input id="email" name="email" type="email" autoComplete="email" className={inputClass} disabled={busy} />
        </Field>
        <Field id="password" label="Password">
          <input id="password" name="password" type="password" autoComplete="current-password" className={inputClass} disabled={busy} />
        </Field>
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
        <Link to={oauthQuery ? `/register?${oauthQuery}` : "/register"} className={linkClass}>
          {AUTH_TEXT.signUp}
        </Link>
      </p>
    </AuthCard>
  );
}
