import { CheckCircle2, XCircle } from "~/web/components/icons";
import { Link } from "react-router";
import { confirmEmail } from "../../server/features/auth/service";
import { loginPath } from "../../shared/auth";
import { AuthCard, linkClass } from "../components/ui";
import type { Route } from "./+types/verify-email";

export function meta() {
  return [{ title: "Confirm your email" }, { name: "robots", content: "noindex" }];
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const query = url.searchParams;
  // Where the visitor was going when they signed up (a same-site path only), for after logging in.
  return { outcome: await confirmEmail(context.auth, context.db, query.get("token")), login: loginPath(query.get("redirect")) };
}

const TEXT = {
  confirmed: { title: "Email confirmed", body: "Your email address is confirmed. You can log in now." },
  used: { title: "Link already used", body: "This confirmation link has already been used. If your address is confirmed, just log in." },
  expired: {
    title: "Link expired",
    body: "This confirmation link has expired (links work for 24 hours). Log in to get a new one sent to you.",
  },
  invalid: { title: "Invalid link", body: "This confirmation link is not valid. Check that you copied the whole link from the email." },
} as const;

export default function VerifyEmail({ loaderData }: Route.ComponentProps) {
  const ok = loaderData.outcome === "confirmed";
  const t = TEXT[loaderData.outcome];
  return (
    <AuthCard title={t.title}>
      <div className="flex flex-col items-center text-center">
        {ok ? (
          <CheckCircle2 className="h-12 w-12 text-emerald-500" aria-hidden />
        ) : (
          <XCircle className="h-12 w-12 text-red-500" aria-hidden />
        )}
        <p className="mt-4 text-slate-700 dark:text-slate-300" data-outcome={loaderData.outcome}>
          {t.body}
        </p>
        <Link to={loaderData.login} className={`mt-6 ${linkClass}`}>
          Go to login
        </Link>
      </div>
    </AuthCard>
  );
}
