import { Loader2, Plug } from "~/web/components/icons";
import { useEffect } from "react";
import { data, Link, redirect, useFetcher } from "react-router";
import { CONNECTION_TEXT, connectionInput, parseHeaderLines, type ConnectionView } from "../../shared/connections";
import { statusLabel } from "../../shared/deployments";
import { ORG_TEXT } from "../../shared/orgs";
import { OAuthChoice } from "../components/ConnectionForms";
import { OwnerSwitch } from "../components/OwnerSwitch";
import { OwnedBy, RowActions, RowError, RowList, RowStatus, RowUrl } from "../components/hosted/HostedRow";
import { Alert, Button, Field, formLegend, formSection, inputClass, linkClass } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { Enhanced, FormField, useActionForm } from "../lib/forms";
import { formMessage } from "../lib/validation";
import type { Route } from "./+types/connections";
import { ownerChoice } from "./server-page.server";

// Connections (docs/product.md#connections): remote MCP servers reached through Switchboard with
// the user's own headers. Connect one by URL here (a catalogue entry's remote: Connect on its
// page), see each one's status and Switchboard URL, open it, remove it.

export function meta() {
  return [{ title: CONNECTION_TEXT.title }, { name: "robots", content: "noindex" }];
}

/** A connection's own page: a catalogue entry's remote is its entry's page; an organisation's opens as the organisation. */
export const connectionPath = (c: Pick<ConnectionView, "entry" | "name" | "org">) =>
  (c.entry === null ? `/connections/${encodeURIComponent(c.name)}` : `/server/${encodeURIComponent(c.entry)}`) +
  (c.org ? `?as=${encodeURIComponent(c.org.slug)}` : "");

export async function loader({ context, url }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/connections");
  const [r, owners] = await Promise.all([context.api<ConnectionView[]>("GET", "/api/connections"), ownerChoice(context, url, true)]);
  return { connections: r.ok ? r.data : [], loadFailed: !r.ok, owners };
}

/** The connect form's fields an error may be about: it is said there, not at the form's top. */
const FIELDS = ["name", "url", "headers"] as const;
type FieldName = (typeof FIELDS)[number];
const fieldNamed = (f: unknown): FieldName | undefined => FIELDS.find((n) => n === f);

/** What was typed, to fill the form again after a refusal without scripts (never the headers: they carry secrets). */
type Typed = { name: string; url: string; transport: string; oauth: boolean };

type Answer = { form: "create" | "remove"; error?: string; field?: FieldName; message?: string; typed?: Typed };

export async function action({ request, context }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/connections");
  const form = await request.formData();
  const intent = field(form, "intent");
  const owner = field(form, "owner");
  const back = owner ? `/connections?as=${encodeURIComponent(owner)}` : "/connections";
  const done = (a: Answer) => (!a.error && !isEnhanced(form) ? redirect(back, 303) : data(a));
  if (intent === "remove") {
    const r = await context.api("DELETE", `/api/connections/${encodeURIComponent(field(form, "connection"))}`);
    return done(
      r.ok ? { form: "remove", message: CONNECTION_TEXT.removed } : { form: "remove", error: r.error ?? CONNECTION_TEXT.notFound },
    );
  }
  const typed: Typed = {
    name: field(form, "name").trim(),
    url: field(form, "url").trim(),
    transport: field(form, "transport"),
    oauth: field(form, "oauth") === "on",
  };
  const refused = (error: string, about?: unknown) => data({ form: "create", error, field: fieldNamed(about), typed } satisfies Answer);
  let headers: Record<string, string>;
  try {
    headers = parseHeaderLines(field(form, "headers"));
  } catch (e) {
    return refused((e as Error).message, "headers");
  }
  const body = {
    owner: owner || undefined,
    name: field(form, "name").trim(),
    url: field(form, "url").trim(),
    transport: field(form, "transport") || undefined,
    headers,
    oauth: field(form, "oauth") === "on" ? true : undefined,
  };
  const input = connectionInput.safeParse(body);
  if (!input.success) return refused(formMessage(input.error), input.error.issues[0]?.path[0]);
  const r = await context.api<{ authorize_url?: string }>("POST", "/api/connections", input.data, { timeoutMs: 60_000 });
  // Signing in with OAuth: the browser goes to the server's consent, and comes back to make the connection.
  if (r.ok && r.data.authorize_url) throw redirect(r.data.authorize_url, 303);
  if (!r.ok) return refused(r.error ?? CONNECTION_TEXT.notFound, r.field);
  return done({ form: "create", message: CONNECTION_TEXT.connected });
}

/** A field of the connect form: its error under it, and the field says so (aria-invalid, aria-describedby). */
function fieldState(id: string, error: string | undefined, hint = false) {
  const errorId = `${id}-error`;
  const describedBy = [hint ? `${id}-hint` : "", error ? errorId : ""].filter(Boolean).join(" ");
  return {
    meta: { id, errorId, errors: error ? [error] : undefined },
    input: { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy || undefined },
  };
}

export default function Connections({ loaderData }: Route.ComponentProps) {
  const { connections, loadFailed, owners } = loaderData;
  const { fetcher, answer, busy } = useActionForm<Answer>("create");
  const created = answer?.form === "create" ? answer : undefined;
  const error = created?.error;
  const at = (f: FieldName) => (created?.field === f ? error : undefined);
  const formError = created?.field ? undefined : error;
  const typed = created?.typed;
  const name = fieldState("conn-name", at("name"), true);
  const url = fieldState("conn-url", at("url"));
  const headers = fieldState("conn-headers", at("headers"), true);
  // With scripts, the field an answer refuses takes the focus, so its error is read out with it.
  useEffect(() => {
    if (fetcher.data?.field) document.getElementById(`conn-${fetcher.data.field}`)?.focus();
  }, [fetcher.data]);
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <h1 className="flex items-center gap-2 text-2xl font-bold">
        <Plug className="h-6 w-6 text-indigo-500" aria-hidden /> {CONNECTION_TEXT.title}
      </h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">{CONNECTION_TEXT.intro}</p>

      {/* A new form per answer: the headers typed are cleared once connected. */}
      <fetcher.Form
        method="post"
        className={`${formSection} mt-6`}
        key={`${owners.as}:${answer?.message ?? "new"}`}
        aria-labelledby="connect-url"
      >
        <h2 id="connect-url" className={formLegend}>
          {CONNECTION_TEXT.byUrl}
        </h2>
        <Enhanced />
        <input type="hidden" name="intent" value="create" />
        <input type="hidden" name="owner" value={owners.as} />
        <OwnerSwitch choice={owners} path="/connections" label={ORG_TEXT.connectAs} hint={ORG_TEXT.connectAsHint} />
        <div className="grid gap-4 sm:grid-cols-2">
          <FormField meta={name.meta} label={CONNECTION_TEXT.nameLabel} hint={CONNECTION_TEXT.nameHint}>
            <input
              {...name.input}
              name="name"
              defaultValue={typed?.name}
              required
              maxLength={40}
              pattern="[a-z0-9][a-z0-9\-]{0,39}"
              className={inputClass}
              autoComplete="off"
            />
          </FormField>
          <Field id="conn-transport" label={CONNECTION_TEXT.transportLabel}>
            <select id="conn-transport" name="transport" className={inputClass} defaultValue={typed?.transport ?? ""}>
              <option value="">{CONNECTION_TEXT.transportAuto}</option>
              <option value="streamable-http">Streamable HTTP</option>
              <option value="sse">SSE (legacy)</option>
            </select>
          </Field>
        </div>
        <FormField meta={url.meta} label={CONNECTION_TEXT.urlLabel}>
          <input
            {...url.input}
            name="url"
            defaultValue={typed?.url}
            type="url"
            required
            maxLength={2000}
            placeholder="https://mcp.example.com/mcp"
            className={`${inputClass} font-mono`}
            autoComplete="off"
          />
        </FormField>
        <OAuthChoice id="conn-oauth" defaultChecked={typed?.oauth} />
        <FormField meta={headers.meta} label={CONNECTION_TEXT.headersLabel} hint={CONNECTION_TEXT.headersHint}>
          <textarea
            {...headers.input}
            name="headers"
            rows={3}
            spellCheck={false}
            autoComplete="off"
            placeholder="Authorization: Bearer ..."
            className={`${inputClass} font-mono`}
          />
        </FormField>
        {formError && <Alert kind="error">{formError}</Alert>}
        {answer?.form === "create" && answer.message && !error && (
          <p role="status" className="text-sm text-green-700 dark:text-green-400">
            {answer.message}
          </p>
        )}
        <Button type="submit" disabled={busy}>
          {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Plug className="h-4 w-4" aria-hidden />}
          {busy ? CONNECTION_TEXT.connecting : CONNECTION_TEXT.connect}
        </Button>
      </fetcher.Form>

      <RowList loadFailed={loadFailed} texts={CONNECTION_TEXT} testId="connections">
        {connections.map((c) => (
          <ConnectionRow key={c.id} c={c} />
        ))}
      </RowList>
    </section>
  );
}

function ConnectionRow({ c }: { c: ConnectionView }) {
  const fetcher = useFetcher<Answer>();
  const running = c.status === "running";
  return (
    <li className="rounded-xl border border-slate-200 p-4 dark:border-slate-800" data-testid="connection">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <Link to={connectionPath(c)} className={`${linkClass} break-all font-mono`}>
            {c.name}
          </Link>
          <OwnedBy org={c.org} />
          <RowStatus running={running} testId="connection-status" status={statusLabel(c.status)} createdAt={c.created_at}>
            {c.header_names.length > 0 ? ` · sends ${c.header_names.join(", ")}` : ""}
            {c.auth === "oauth" ? " · signs in with OAuth" : ""}
          </RowStatus>
          <p className="mt-1 break-all text-xs text-slate-600 dark:text-slate-400">
            {c.remote_url} ({c.transport === "sse" ? "SSE" : "Streamable HTTP"})
          </p>
        </div>
        <RowActions
          manage={c.org?.manage ?? true}
          path={connectionPath(c)}
          fetcher={fetcher}
          field="connection"
          id={c.id}
          name={c.name}
          texts={{
            label: CONNECTION_TEXT.disconnect,
            title: CONNECTION_TEXT.removeTitle(c.name),
            description: CONNECTION_TEXT.removeText,
            cancel: CONNECTION_TEXT.cancel,
          }}
        />
      </div>
      <RowUrl url={c.url} />
      {c.status_detail && !running && (
        <pre
          tabIndex={0}
          className="mt-2 max-h-32 overflow-auto whitespace-pre-wrap rounded-md bg-amber-50 p-2 text-xs text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
        >
          {c.status_detail}
        </pre>
      )}
      <RowError error={fetcher.data?.error} />
    </li>
  );
}
