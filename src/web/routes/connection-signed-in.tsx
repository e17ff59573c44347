import { ArrowLeft, Plug } from "~/web/components/icons";
import { Link, redirect } from "react-router";
import { CONNECTION_TEXT, type ConnectionView } from "../../shared/connections";
import { Alert, buttonClass } from "../components/ui";
import type { Route } from "./+types/connection-signed-in";
import { connectionPath } from "./connections";

// Where a remote server's consent sends the browser back (features/connections/upstream-oauth.ts):
// the code is exchanged for the user's tokens and the connection made (or signed in again), then
// its page opens. A sign-in that expired, was used, belongs to another user or was declined says
// so here, with the way back.

export function meta() {
  return [{ title: CONNECTION_TEXT.title }, { name: "robots", content: "noindex" }];
}

export async function loader({ url: u, context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(u.pathname + u.search)}`);
  const q = (name: string) => u.searchParams.get(name)?.slice(0, 4096) || undefined;
  const r = await context.api<{ connection: ConnectionView }>(
    "POST",
    "/api/connections/authorized",
    { state: (q("state") ?? "").slice(0, 200), code: q("code"), error: q("error")?.slice(0, 200) },
    { timeoutMs: 60_000 },
  );
  if (r.ok) throw redirect(connectionPath(r.data.connection), 303);
  return { error: r.error ?? CONNECTION_TEXT.signInExpired };
}

export default function ConnectionSignedIn({ loaderData }: Route.ComponentProps) {
  return (
    <section className="mx-auto max-w-xl px-4 py-16">
      <h1 className="flex items-center gap-2 text-2xl font-bold">
        <Plug className="h-6 w-6 text-indigo-500" aria-hidden /> {CONNECTION_TEXT.title}
      </h1>
      <div className="mt-6">
        <Alert kind="error">{loaderData.error}</Alert>
      </div>
      <Link to="/connections" className={`mt-6 ${buttonClass("primary")}`}>
        <ArrowLeft className="h-4 w-4" aria-hidden /> {CONNECTION_TEXT.title}
      </Link>
    </section>
  );
}
