import { TriangleAlert } from "~/web/components/icons";
import { useEffect, useRef } from "react";
import { data, Link } from "react-router";
import { OAUTH_TEXT, oauthErrorText } from "../../shared/oauth";
import { linkClass } from "../components/ui";
import type { Route } from "./+types/oauth-error";

// Where the authorization server sends the browser when it must not answer the client: an unknown
// client, a redirect address the client never registered (docs/product.md#oauth-connections).
// It only shows what went wrong; it never links or redirects to the client.

export function meta() {
  return [{ title: OAUTH_TEXT.errorTitle }, { name: "robots", content: "noindex" }];
}

const CODE = /^[A-Za-z0-9_.-]{1,64}$/;

export function loader({ url }: Route.LoaderArgs) {
  const q = url.searchParams;
  const raw = q.get("error");
  const code = raw && CODE.test(raw) ? raw : null;
  const description = (q.get("error_description") ?? "").slice(0, 300) || null;
  return data({ code, text: oauthErrorText(code), description }, { status: 400 });
}

export default function OAuthError({ loaderData }: Route.ComponentProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const { code, text, description } = loaderData;
  return (
    <section className="mx-auto w-full max-w-lg px-4 py-12">
      <div className="rounded-2xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900/60">
        <h1 ref={heading} tabIndex={-1} className="flex items-center gap-2 text-2xl font-bold tracking-tight focus:outline-none">
          <TriangleAlert className="h-6 w-6 shrink-0 text-amber-500" aria-hidden /> {OAUTH_TEXT.errorTitle}
        </h1>
        <p className="mt-4 text-slate-700 dark:text-slate-300" data-testid="oauth-error-text">
          {text}
        </p>
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{OAUTH_TEXT.errorNothingShared}</p>
        {(description || code) && (
          <p className="mt-4 break-words text-xs text-slate-600 dark:text-slate-400" data-testid="oauth-error-details">
            {OAUTH_TEXT.errorDetails}: {description}
            {code && <code className="ml-1 font-mono">({code})</code>}
          </p>
        )}
        <Link to="/" className={`mt-6 inline-block ${linkClass}`}>
          {OAUTH_TEXT.backHome}
        </Link>
      </div>
    </section>
  );
}
