import { useEffect } from "react";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse } from "react-router";
import type { Route } from "./+types/root";
import "./app.css";
import { Footer } from "./components/Footer";
import { Header } from "./components/Header";
import { buttonClass } from "./components/ui";
import { useRootData, type RootData } from "./lib/root-data";
import { earlySubmitScript } from "./lib/early-submit";
import { themeBootScript } from "./lib/theme";
import { otherHost } from "../shared/public-address";
import { WAY_IN_TEXT } from "../shared/way-in";

export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

export function loader({ context, request }: Route.LoaderArgs): RootData {
  const { config, cspNonce } = context;
  // Every URL the platform gives out is built on PUBLIC_URL: an admin reaching the site elsewhere is told.
  const seen = context.viewer?.isAdmin ? otherHost(request.url, config.PUBLIC_URL) : null;
  return {
    site: {
      name: config.SITE_NAME,
      builderUrl: config.BUILDER_URL,
      communityUrl: config.COMMUNITY_URL,
      year: new Date().getFullYear(),
    },
    nonce: cspNonce,
    user: context.viewer ? { id: context.viewer.id, username: context.viewer.username, isAdmin: context.viewer.isAdmin } : null,
    otherHost: seen ? { seen, publicUrl: config.PUBLIC_URL } : null,
  };
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRootData();
  const nonce = root?.nonce;
  return (
    <html lang="en" className="dark" suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="dark light" />
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: themeBootScript }} />
        {/* Before the page hydrates, a form clicked posts as it does without scripts (lib/early-submit.ts). */}
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: earlySubmitScript }} />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen bg-white text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <div className="flex min-h-screen flex-col">
          <Header />
          {root?.otherHost && (
            <p
              role="status"
              data-testid="other-host"
              className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
            >
              {WAY_IN_TEXT.otherHost(root.otherHost.seen, root.otherHost.publicUrl)} {WAY_IN_TEXT.otherHostFix}
            </p>
          )}
          <main id="main" className="flex-1">
            {children}
          </main>
          <Footer />
        </div>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  // Scripts run the page from here on (tests and styles can tell a page that has hydrated).
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  let title = "Something went wrong";
  let detail = "An unexpected error occurred. Please try again.";
  if (isRouteErrorResponse(error)) {
    title = error.status === 404 ? "404 Page Not Found" : `${error.status} ${error.statusText}`;
    if (error.status === 404) detail = "The page you are looking for does not exist.";
  }
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-3xl font-bold">{title}</h1>
      <p className="mt-4 text-slate-600 dark:text-slate-400">{detail}</p>
      <a href="/" className={`mt-8 ${buttonClass("primary")}`}>
        Return to Home
      </a>
    </section>
  );
}
