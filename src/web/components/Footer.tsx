import { Link } from "react-router";
import { AUTH_TEXT, loginPath, withRedirect } from "../../shared/auth";
import { WAY_IN_TEXT } from "../../shared/way-in";
import { useRootData, useSite } from "../lib/root-data";
import { useHere, useOnAuthPage } from "./SignInLinks";

const footerLink = "font-medium text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400";

export function Footer() {
  const site = useSite();
  // Signed in, or on a page of signing in (it has its own links), no way in to offer.
  const onAuthPage = useOnAuthPage();
  const offer = !useRootData()?.user && !onAuthPage;
  const here = useHere();
  return (
    <footer className="border-t border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-900/50">
      <div className="mx-auto grid max-w-7xl gap-6 px-4 py-10 sm:px-6 md:grid-cols-3">
        <div className="md:col-span-2">
          <p className="font-semibold">{site.name}</p>
          <p className="mt-2 max-w-prose text-sm text-slate-600 dark:text-slate-400">
            We're building a workflow automation platform for orchestrating work, data and AI.{" "}
            <Link to="/waitlist" className="font-medium text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400">
              Join the waitlist
            </Link>{" "}
            to be the first to try it.
          </p>
        </div>
        <div className="text-sm md:text-right">
          {/* The way in and the docs, which the header (the spec's) does not offer. */}
          <nav aria-label="Footer" className="mb-3 flex flex-wrap gap-x-4 gap-y-1 md:justify-end">
            <Link to="/docs" className={footerLink}>
              {WAY_IN_TEXT.docsLink}
            </Link>
            {offer && (
              <span data-testid="way-in">
                {WAY_IN_TEXT.footerInvite}{" "}
                <Link to={loginPath(here)} className={footerLink}>
                  {AUTH_TEXT.logIn}
                </Link>{" "}
                or{" "}
                <Link to={withRedirect("/register", here)} className={footerLink}>
                  {AUTH_TEXT.signUp}
                </Link>
              </span>
            )}
          </nav>
          <a
            href={site.communityUrl}
            target="_blank"
            rel="noopener noreferrer"
            className="font-medium text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400"
          >
            Join our community chat
          </a>
          <p className="mt-2 text-slate-600 dark:text-slate-400">
            © {site.year} {site.name}. All rights reserved.
          </p>
        </div>
      </div>
    </footer>
  );
}
