import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Loader2 } from "~/web/components/icons";
import { Link } from "react-router";
import { FORGOT_TEXT, AUTH_TEXT, forgotForm } from "../../shared/auth";
import { Alert, AuthCard, Button, inputClass, linkClass } from "../components/ui";
import { Enhanced, FormError, FormField, useActionForm } from "../lib/forms";
import type { Route } from "./+types/forgot-password";

export function meta() {
  return [{ title: "Reset your password" }];
}

type Answer = { result?: SubmissionResult<string[]>; sent?: string };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = parseWithZod(await request.formData(), { schema: forgotForm });
  if (submission.status !== "success") return { result: submission.reply() } satisfies Answer;
  const { email } = submission.value;
  const r = await context.api("POST", "/api/auth/request-password-reset", { email, redirectTo: "/reset-password" });
  // The same answer whether or not the address has an account.
  if (r.ok || r.code === "INVALID_EMAIL") return { sent: email } satisfies Answer;
  return {
    result: submission.reply({ formErrors: [r.status === 429 ? AUTH_TEXT.tooManyAttempts(r.retryAfter ?? 60) : FORGOT_TEXT.failed] }),
  } satisfies Answer;
}

export default function ForgotPassword() {
  const { fetcher, answer, busy } = useActionForm<Answer>("forgot");
  const [form, fields] = useForm({
    id: "forgot",
    lastResult: answer?.result,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: forgotForm }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });

  return (
    <AuthCard title={FORGOT_TEXT.title}>
      {answer?.sent ? (
        <div className="space-y-6 text-center">
          <Alert kind="success">{FORGOT_TEXT.sent(answer.sent)}</Alert>
          <Link to="/login" className={linkClass}>
            {AUTH_TEXT.returnToLogin}
          </Link>
        </div>
      ) : (
        <fetcher.Form method="post" {...getFormProps(form)} className="space-y-4">
          <Enhanced />
          <p className="text-sm text-slate-600 dark:text-slate-400">{FORGOT_TEXT.intro}</p>
          <FormError form={form} text={form.errors?.[0]} />
          <FormField meta={fields.email} label="Email">
            <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" className={inputClass} disabled={busy} />
          </FormField>
          <Button type="submit" size="lg" block disabled={busy}>
            {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {busy ? FORGOT_TEXT.sending : FORGOT_TEXT.send}
          </Button>
          <p className="text-center text-sm">
            <Link to="/login" className={linkClass}>
              {AUTH_TEXT.returnToLogin}
            </Link>
          </p>
        </fetcher.Form>
      )}
    </AuthCard>
  );
}
