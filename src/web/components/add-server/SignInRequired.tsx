import { Lock } from "~/web/components/icons";
import { Link } from "react-router";
import { SUBMIT_TEXT } from "~/shared/catalog";
import { buttonClass } from "../ui";

// What the submit page shows a visitor who is not signed in: Login, or back to the directory.

export function SignInRequired() {
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <Lock className="mx-auto h-10 w-10 text-indigo-500" aria-hidden />
      <h1 className="mt-4 text-2xl font-bold">{SUBMIT_TEXT.authRequired}</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">{SUBMIT_TEXT.authRequiredText}</p>
      <div className="mt-8 flex justify-center gap-3">
        <Link to="/login?redirect=/servers/add" className={buttonClass("primary", "lg")}>
          Login
        </Link>
        <Link to="/" className={buttonClass("secondary", "lg")}>
          {SUBMIT_TEXT.backToDirectory}
        </Link>
      </div>
    </section>
  );
}
