import { Loader2 } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { FORGOT_TEXT, AUTH_TEXT } from "../../shared/auth";
import { Alert, AuthCard, Field, Button, inputClass, linkClass } from "../components/ui";
import { api } from "../lib/api";

export function meta() {
  return [{ title: "Reset your password" }];
}


export default function ForgotPassword() {
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    if (!email) return setError(FORGOT_TEXT.required);
    setBusy(true);
    setError(null);
    const r = await api("/api/auth/request-password-reset", { body: { email, redirectTo: "/reset-password" }, timeoutMs: 20_000 });
    setBusy(false);
    // The same answer whether or not the address has an account.
    if (r.ok || r.code === "INVALID_EMAIL") setSent(email);
    else setError(r.status === 429 ? AUTH_TEXT.tooManyAttempts(r.retryAfter ?? 60) : FORGOT_TEXT.failed);
  }

  return (
    <AuthCard title={FORGOT_TEXT.title}>
      {sent ? (
        <div className="space-y-6 text-center">
          <Alert kind="success">{FORGOT_TEXT.sent(sent)}</Alert>
          <Link to="/login" className={linkClass}>
            {AUTH_TEXT.returnToLogin}
          </Link>
        </div>
      ) : (
        <form onSubmit={onSubmit} noValidate className="space-y-4">
          <p className="text-sm text-slate-600 dark:text-slate-400">{FORGOT_TEXT.intro}</p>
          {error && <Alert kind="error">{error}</Alert>}
          <Field id="email" label="Email">
            <input id="email" name="email" type="email" autoComplete="email" className={inputClass} disabled={busy} />
          </Field>
          <Button type="submit" size="lg" block disabled={busy}>
            {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {busy ? FORGOT_TEXT.sending : FORGOT_TEXT.send}
          </Button>
          <p className="text-center text-sm">
            <Link to="/login" className={linkClass}>
              {AUTH_TEXT.returnToLogin}
            </Link>
          </p>
        </form>
      )}
    </AuthCard>
  );
}
