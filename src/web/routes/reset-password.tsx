import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Loader2 } from "~/web/components/icons";
import { Link, useSearchParams } from "react-router";
import { RESET_TEXT, AUTH_TEXT, resetForm } from "../../shared/auth";
import { Alert, AuthCard, Button, inputClass, linkClass } from "../components/ui";
import { Enhanced, FormError, FormField, useActionForm } from "../lib/forms";
import type { Route } from "./+types/reset-password";

export function meta() {
  return [{ title: "Choose a new password" }, { name: "robots", content: "noindex" }];
}

type Answer = { result?: SubmissionResult<string[]>; done?: boolean };

export async function action({ request, context, url }: Route.ActionArgs) {
  // The link's token travels in the address the form posts to (the e-mailed link put it there).
  const token = url.searchParams.get("token");
  const submission = parseWithZod(await request.formData(), { schema: resetForm });
  const hideFields = ["password", "confirm"];
  if (!token) return { result: submission.reply({ formErrors: [RESET_TEXT.invalid], hideFields }) } satisfies Answer;
  if (submission.status !== "success") return { result: submission.reply({ hideFields }) } satisfies Answer;
  const r = await context.api("POST", "/api/auth/reset-password", { newPassword: submission.value.password, token });
  if (r.ok) return { done: true } satisfies Answer;
  const text =
    r.code === "INVALID_TOKEN" ? RESET_TEXT.invalid : r.status === 429 ? AUTH_TEXT.tooManyAttempts(r.retryAfter ?? 60) : RESET_TEXT.failed;
  return { result: submission.reply({ formErrors: [text], hideFields }) } satisfies Answer;
}

export default function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get("token");
  const { fetcher, answer, busy } = useActionForm<Answer>("reset");
  const [form, fields] = useForm({
    id: "reset",
    lastResult: answer?.result,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: resetForm }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const error = form.errors?.[0] ?? (token ? null : RESET_TEXT.invalid);

  return (
    <AuthCard title={RESET_TEXT.title}>
      {answer?.done ? (
        <div className="space-y-6 text-center">
          <Alert kind="success">{RESET_TEXT.done}</Alert>
          <Link to="/login" className={linkClass}>
            {AUTH_TEXT.returnToLogin}
          </Link>
        </div>
      ) : (
        <fetcher.Form method="post" {...getFormProps(form)} className="space-y-4">
          <Enhanced />
          <FormError form={form} text={error} />
          <FormField meta={fields.password} label="New Password" hint={AUTH_TEXT.passwordHint}>
            <input
              {...getInputProps(fields.password, { type: "password", ariaDescribedBy: `${fields.password.id}-hint` })}
              autoComplete="new-password"
              className={inputClass}
              disabled={busy || !token}
            />
          </FormField>
          <FormField meta={fields.confirm} label="Confirm New Password">
            <input
              {...getInputProps(fields.confirm, { type: "password" })}
              autoComplete="new-password"
              className={inputClass}
              disabled={busy || !token}
            />
          </FormField>
          <Button type="submit" size="lg" block disabled={busy || !token}>
            {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {busy ? RESET_TEXT.saving : RESET_TEXT.save}
          </Button>
          <p className="text-center text-sm">
            <Link to="/forgot-password" className={linkClass}>
              Request a new link
            </Link>
          </p>
        </fetcher.Form>
      )}
    </AuthCard>
  );
}
