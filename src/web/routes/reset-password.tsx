import { Loader2 } from "lucide-react";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { RESET_TEXT, AUTH_TEXT, MAX_PASSWORD, MIN_PASSWORD, PROFILE_TEXT } from "../../shared/auth";
import { Alert, AuthCard, Field, Button, inputClass, linkClass } from "../components/ui";
import { api } from "../lib/api";

export function meta() {
  return [{ title: "Choose a new password" }, { name: "robots", content: "noindex" }];
}


export default function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get("token");
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(token ? null : RESET_TEXT.invalid);

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const password = String(form.get("password") ?? "");
    const confirm = String(form.get("confirm") ?? "");
    if (password.length < MIN_PASSWORD) return setError(AUTH_TEXT.passwordTooShort);
    if (password.length > MAX_PASSWORD) return setError(AUTH_TEXT.passwordTooLong);
    if (password !== confirm) return setError(PROFILE_TEXT.mismatch);
    setBusy(true);
    setError(null);
    const r = await api("/api/auth/reset-password", { body: { newPassword: password, token }, timeoutMs: 20_000 });
    setBusy(false);
    if (r.ok) setDone(true);
    else setError(r.code === "INVALID_TOKEN" ? RESET_TEXT.invalid : r.status === 429 ? AUTH_TEXT.tooManyAttempts(r.retryAfter ?? 60) : RESET_TEXT.failed);
  }

  return (
    <AuthCard title={RESET_TEXT.title}>
      {done ? (
        <div className="space-y-6 text-center">
          <Alert kind="success">{RESET_TEXT.done}</Alert>
          <Link to="/login" className={linkClass}>
            {AUTH_TEXT.returnToLogin}
          </Link>
        </div>
      ) : (
        <form onSubmit={onSubmit} noValidate className="space-y-4">
          {error && <Alert kind="error">{error}</Alert>}
          <Field id="password" label="New Password" hint={AUTH_TEXT.passwordHint}>
            <input id="password" name="password" type="password" autoComplete="new-password" className={inputClass} disabled={busy || !token} />
          </Field>
          <Field id="confirm" label="Confirm New Password">
            <input id="confirm" name="confirm" type="password" autoComplete="new-password" className={inputClass} disabled={busy || !token} />
          </Field>
          <Button type="submit" size="lg" block disabled={busy || !token}>
            {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {busy ? RESET_TEXT.saving : RESET_TEXT.save}
          </Button>
          <p className="text-center text-sm">
            <Link to="/forgot-password" className={linkClass}>
              Request a new link
            </Link>
          </p>
        </form>
      )}
    </AuthCard>
  );
}
