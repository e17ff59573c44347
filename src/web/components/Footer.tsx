import { Link } from "react-router";
import { useSite } from "../lib/root-data";

export function Footer() {
  const site = useSite();
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
