import { Link, useLocation } from "react-router";
import { AUTH_TEXT, loginPath, withRedirect } from "../../shared/auth";
import { buttonClass, linkClass } from "./ui";

// The way in for a visitor where the header has none (the spec keeps sign-in links out of it):
// 'Log in' and 'Sign up', both coming back to this page afterwards (the login page's `redirect`,
// a same-site path only: shared/auth.ts safeRedirect).

/** The pages of signing in itself: from them, a sign-in goes where they were already going. */
const AUTH_PAGES = new Set(["/login", "/register", "/forgot-password", "/reset-password", "/verify-email"]);

/** This page is one of signing in itself (which offers its own way on). */
export function useOnAuthPage(): boolean {
  return AUTH_PAGES.has(useLocation().pathname);
}

/** Where a sign-in from this page comes back to: the page itself. */
export function useHere(): string {
  const { pathname, search } = useLocation();
  if (AUTH_PAGES.has(pathname)) return new URLSearchParams(search).get("redirect") ?? "/";
  return `${pathname}${search}`;
}

/** "Log in or Sign up {after}", as a line of text. */
export function SignInLinks({ after, className = "" }: { after?: string; className?: string }) {
  const here = useHere();
  return (
    <p className={`text-sm text-slate-600 dark:text-slate-400 ${className}`} data-testid="way-in">
      <Link to={loginPath(here)} className={linkClass}>
        {AUTH_TEXT.logIn}
      </Link>{" "}
      or{" "}
      <Link to={withRedirect("/register", here)} className={linkClass}>
        {AUTH_TEXT.signUp}
      </Link>
      {after ? ` ${after}` : ""}
    </p>
  );
}

/** 'Log in' and 'Sign up' as buttons (the home page). */
export function SignInButtons({ className = "" }: { className?: string }) {
  const here = useHere();
  return (
    <div className={`flex flex-wrap gap-2 ${className}`} data-testid="way-in">
      <Link to={withRedirect("/register", here)} className={buttonClass("primary")}>
        {AUTH_TEXT.signUp}
      </Link>
      <Link to={loginPath(here)} className={buttonClass("secondary")}>
        {AUTH_TEXT.logIn}
      </Link>
    </div>
  );
}
