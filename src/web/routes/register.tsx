import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Loader2, MailCheck } from "~/web/components/icons";
import { data, Link, redirect, useSearchParams } from "react-router";
import { AUTH_TEXT, LOGIN_TIMEOUT_MS, loginPath, registerForm, safeRedirect } from "../../shared/auth";
import { authorizeQueryOf, isAuthorizeQuery, resumeAuthorizeUrl } from "../../shared/oauth";
import { Divider, GitHubButton } from "../components/GitHubButton";
import { AuthCard, Button, inputClass, linkClass } from "../components/ui";
import { cookieHeaders, field } from "../lib/actions.server";
import { registerErrorText } from "../lib/auth-errors";
import { Enhanced, FormError, FormField, useActionForm } from "../lib/forms";
import { githubSignIn } from "../lib/github.server";
import type { Route } from "./+types/register";

export function meta({ data }: Route.MetaArgs) {
  return [{ title: data ? AUTH_TEXT.registerTitle(data.site) : "Register" }];
}

export function loader({ context, url }: Route.LoaderArgs) {
  const query = url.searchParams;
  // Reached from an OAuth authorization request (through the login page): signed in, it goes on.
  if (context.viewer) throw redirect(isAuthorizeQuery(query) ? resumeAuthorizeUrl(query) : safeRedirect(query.get("redirect")));
  return { site: context.config.SITE_NAME, github: context.githubEnabled };
}

type Answer = { form?: string; result?: SubmissionResult<string[]>; registered?: boolean };

export async function action({ request, context, url }: Route.ActionArgs) {
  const form = await request.formData();
  const query = url.searchParams;
  if (field(form, "intent") === "github") return githubSignIn(context, form, "register", authorizeQueryOf(query));
  const submission = parseWithZod(form, { schema: registerForm });
  if (submission.status !== "success") return { form: "register", result: submission.reply({ hideFields: ["password"] }) } satisfies Answer;
  const { email, password } = submission.value as { email: string; password: string };
  // The confirmation link comes back to where the visitor was going (`redirect`, a same-site path).
  // The username is the part of the address before the @ (docs/product.md#sign-up-and-confirmation).
  const r = await context.api(
    "POST",
    "/api/auth/sign-up/email",
    { email, password, name: email.split("@")[0] ?? email, callbackURL: loginPath(query.get("redirect")) },
    { timeoutMs: LOGIN_TIMEOUT_MS },
  );
  if (!r.ok)
    return data(
      { form: "register", result: submission.reply({ formErrors: [registerErrorText(r)], hideFields: ["password"] }) } satisfies Answer,
      { headers: cookieHeaders(r) },
    );
  return data({ form: "register", registered: true } satisfies Answer, { headers: cookieHeaders(r) });
}

export default function Register({ loaderData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const { fetcher, answer, busy } = useActionForm<Answer>("register");
  const [form, fields] = useForm({
    id: "register",
    lastResult: answer?.result,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: registerForm }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  // An OAuth request in progress travels with the links, so signing in afterwards resumes it.
  const oauthQuery = authorizeQueryOf(params);
  const loginLink = oauthQuery ? `/login?${oauthQuery}` : loginPath(params.get("redirect"));
  const error = form.errors?.[0] ?? (params.get("error") ? AUTH_TEXT.githubRegisterFailed : null);

  if (answer?.registered) {
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
      <GitHubButton enabled={loaderData.github} disabled={busy} />
      <Divider />
      <fetcher.Form method="post" {...getFormProps(form)} className="space-y-4">
        <Enhanced />
        <FormError form={form} text={error} />
        <FormField meta={fields.email} label="Email">
          <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" className={inputClass} disabled={busy} />
        </FormField>
        <FormField meta={fields.password} label="Password" hint={AUTH_TEXT.passwordHint}>
          <input
            {...getInputProps(fields.password, { type: "password", ariaDescribedBy: `${fields.password.id}-hint` })}
            autoComplete="new-password"
            className={inputClass}
            disabled={busy}
          />
        </FormField>
        <Button type="submit" size="lg" block disabled={busy}>
          {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy ? AUTH_TEXT.creatingAccount : AUTH_TEXT.createAccount}
        </Button>
      </fetcher.Form>
      <p className="mt-6 text-center text-sm text-slate-600 dark:text-slate-400">
        Already have an account?{" "}
        <Link to={loginLink} className={linkClass}>
          Log in
        </Link>
      </p>
    </AuthCard>
  );
}
