import { KeyRound, LogIn, Plug } from "~/web/components/icons";
import { data, redirect } from "react-router";
import { myDeploymentTools } from "../../server/features/deployments/service";
import { CONNECTION_TEXT, connectionHeadersUpdate, parseHeaderLines, type ConnectionView } from "../../shared/connections";
import { SignInAgainButton } from "../components/ConnectionForms";
import { HostedNotFound, HostedServerPage, SaveFooter } from "../components/hosted/HostedServerPage";
import { serverCard } from "../components/ServerParts";
import { inputClass } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { Enhanced, useActionForm } from "../lib/forms";
import { formMessage } from "../lib/validation";
import { deploymentAction } from "../lib/deploy.server";
import type { DeployAnswer } from "../lib/deploy-types";
import { useDeployment } from "../lib/use-deployment";
import type { Route } from "./+types/connection";
import { serverPageData } from "./server-page.server";

// A connection its owner made by URL (docs/product.md#connections): what a server page shows a
// deployment's owner (status, URL, restart, output, definitions to review, playground, request
// log, tool selection), for the remote server behind it. Only its owner ever sees it.

/** The viewer's connection of that name, or their organisation's (`?as=slug`). */
async function own(context: Route.LoaderArgs["context"], name: string, url: URL): Promise<ConnectionView> {
  const as = (url.searchParams.get("as") ?? "").toLowerCase();
  const r = await context.api<ConnectionView[]>("GET", "/api/connections");
  const found = r.ok ? r.data.find((c) => c.entry === null && c.name === name && (c.org?.slug ?? "") === as) : undefined;
  if (!found) throw data({ name }, { status: 404 });
  return found;
}

export async function loader({ params, context, url }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/connections/${params.name}`)}`);
  const connection = await own(context, params.name, url);
  const [page, ownTools] = await Promise.all([
    serverPageData(context, url, { kind: "remote", ref: connection.name }, true, connection.id),
    myDeploymentTools(context.db, context.viewer, connection.id),
  ]);
  return { ...page, connection, ownTools };
}

type HeadersAnswer = { form: "headers"; error?: string; message?: string };

// Edit headers posts here; Stop (remove), Restart, Sign in again and the exposed tools too, as on a server's page.
export async function action({ params, context, request, url }: Route.ActionArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/connections/${params.name}`)}`);
  const form = await request.clone().formData();
  if (field(form, "intent") !== "headers")
    return deploymentAction(context, request, url, { id: params.name, requiredKeys: [], repositoryUrl: null, npxCommand: null });
  let headers: Record<string, string>;
  try {
    headers = parseHeaderLines(field(form, "headers"));
  } catch (e) {
    return data({ form: "headers", error: (e as Error).message } satisfies HeadersAnswer);
  }
  const input = connectionHeadersUpdate.safeParse({ headers });
  if (!input.success) return data({ form: "headers", error: formMessage(input.error) } satisfies HeadersAnswer);
  const r = await context.api("PUT", `/api/connections/${encodeURIComponent(field(form, "connection"))}`, input.data, {
    timeoutMs: 30_000,
  });
  if (!r.ok) return data({ form: "headers", error: r.error ?? CONNECTION_TEXT.notFound } satisfies HeadersAnswer);
  return isEnhanced(form)
    ? data({ form: "headers", message: CONNECTION_TEXT.headersSaved } satisfies HeadersAnswer)
    : redirect(`/connections/${encodeURIComponent(params.name)}`, 303);
}

export function meta({ data: d }: Route.MetaArgs) {
  return [
    { title: d ? `${d.connection.name} · ${CONNECTION_TEXT.title}` : CONNECTION_TEXT.notFound },
    { name: "robots", content: "noindex" },
  ];
}

export function ErrorBoundary() {
  return <HostedNotFound back="/connections" title={CONNECTION_TEXT.title} notFound={CONNECTION_TEXT.notFound} />;
}

export default function ConnectionPage({ loaderData }: Route.ComponentProps) {
  const { connection, signedIn, ownTools } = loaderData;
  const deployment = useDeployment(connection.name, signedIn, connection, `/api/connections/${connection.id}`);
  const card = serverCard;
  // A member of the organisation that owns it, without the right to change it, uses it as it is.
  const manage = connection.org?.manage ?? true;
  return (
    <HostedServerPage
      back="/connections"
      icon={Plug}
      name={connection.name}
      texts={CONNECTION_TEXT}
      deployment={deployment}
      signedIn={signedIn}
      ownTools={ownTools}
      page={loaderData}
      header={
        <>
          <p className="mt-1 break-all font-mono text-sm text-slate-600 dark:text-slate-400">
            {connection.remote_url} ({connection.transport === "sse" ? "SSE" : "Streamable HTTP"})
          </p>
          {connection.header_names.length > 0 && (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{CONNECTION_TEXT.sends(connection.header_names)}</p>
          )}
          {connection.auth === "oauth" && <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{CONNECTION_TEXT.usesOAuth}</p>}
        </>
      }
      aside={
        <>
          {/* Once the server refuses the sign-in, the panel itself offers to sign in again. */}
          {manage &&
            deployment.deployment &&
            connection.auth === "oauth" &&
            !deployment.deployment.status_detail?.startsWith(CONNECTION_TEXT.signInAgain) && <SignInAgain id={connection.id} card={card} />}
          {manage && deployment.deployment && (
            <EditHeaders id={connection.id} names={connection.header_names} oauth={connection.auth === "oauth"} card={card} />
          )}
        </>
      }
    />
  );
}

/** Sign in to the server again: the browser goes to its consent, and the connection restarts with the new grant. */
function SignInAgain({ id, card }: { id: string; card: string }) {
  // The panel's own form key: a refusal shows in the panel, as its other actions' do.
  const { fetcher, busy } = useActionForm<DeployAnswer>("deploy");
  return (
    <section className={card} aria-labelledby="sign-in-again">
      <h2 id="sign-in-again" className="flex items-center gap-2 text-lg font-semibold">
        <LogIn className="h-5 w-5 text-indigo-500" aria-hidden /> {CONNECTION_TEXT.signIn}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{CONNECTION_TEXT.signInHint}</p>
      <fetcher.Form method="post" className="mt-3 space-y-3">
        <Enhanced />
        <input type="hidden" name="intent" value="sign-in" />
        <input type="hidden" name="connection" value={id} />
        <SignInAgainButton busy={busy && fetcher.formData?.get("intent") === "sign-in"} disabled={busy} variant="secondary" />
      </fetcher.Form>
    </section>
  );
}

/** New header values for the connection, which then reconnects (a form: it works without JavaScript). */
function EditHeaders({ id, names, oauth, card }: { id: string; names: string[]; oauth: boolean; card: string }) {
  const { fetcher, answer, busy } = useActionForm<HeadersAnswer>("headers");
  return (
    <section className={card} aria-labelledby="edit-headers">
      <h2 id="edit-headers" className="flex items-center gap-2 text-lg font-semibold">
        <KeyRound className="h-5 w-5 text-indigo-500" aria-hidden /> {CONNECTION_TEXT.editHeaders}
      </h2>
      {/* A new form per answer: the values typed are cleared once saved. */}
      <fetcher.Form method="post" className="mt-3 space-y-3" key={answer?.message ?? "headers"}>
        <Enhanced />
        <input type="hidden" name="intent" value="headers" />
        <input type="hidden" name="connection" value={id} />
        <label className="block text-sm">
          <span id="edit-headers-hint" className="block text-xs text-slate-600 dark:text-slate-400">
            {CONNECTION_TEXT.editHeadersHint}
          </span>
          <textarea
            name="headers"
            rows={3}
            required
            spellCheck={false}
            autoComplete="off"
            aria-labelledby="edit-headers"
            aria-describedby="edit-headers-hint"
            placeholder={names.length ? `${names[0]}: ...` : oauth ? "X-Header: value" : "Authorization: Bearer ..."}
            className={`${inputClass} mt-1 font-mono`}
          />
        </label>
        <SaveFooter answer={answer} busy={busy} label={CONNECTION_TEXT.saveHeaders} />
      </fetcher.Form>
    </section>
  );
}
