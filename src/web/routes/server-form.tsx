import { getFormProps, getInputProps, getTextareaProps, useForm, type Submission, type SubmissionResult } from "@conform-to/react";
import { ArrowLeft, Loader2, Plus } from "~/web/components/icons";
import { data, Link, redirect } from "react-router";
import { z } from "zod";
import { AppError } from "../../server/errors";
import { getMyServer } from "../../server/features/publishers/service";
import { SERVER_FORM_TEXT, serverInput, type OwnedServerView } from "../../shared/publishers";
import { ConnectionFields } from "../components/server-form/ConnectionFields";
import { DocumentationEditor } from "../components/server-form/DocumentationEditor";
import { initialValues, type ServerFormInput } from "../components/server-form/form-values";
import { Alert, Button, formLegend, formSection, inputClass } from "../components/ui";
import { finish, isEnhanced } from "../lib/actions.server";
import { parseForm } from "../lib/form-parse";
import { Enhanced, FormError, FormField, useActionForm } from "../lib/forms";
import type { Route } from "./+types/server-form";
import { OwnerSwitch } from "../components/OwnerSwitch";
import { ORG_TEXT } from "../../shared/orgs";
import { ownerChoice } from "./server-page.server";

/** The qualified name's hint: whose names its owner part may be. */
function nameHint(username: string, orgs: readonly { slug: string }[]): string {
  if (orgs.length === 0) return `owner/name, where owner is your username (${username}).`;
  return `owner/name, where owner is your username (${username}) or an organisation's slug (${orgs.map((o) => o.slug).join(", ")}).`;
}

export function meta({ params }: Route.MetaArgs) {
  return [{ title: params.owner ? SERVER_FORM_TEXT.editTitle : SERVER_FORM_TEXT.newTitle }];
}

export async function loader({ context, params, url }: Route.LoaderArgs) {
  const path = url.pathname;
  if (!context.viewer) throw redirect(`/login?redirect=${path}`);
  // A new server is registered under the viewer's username, or an organisation's slug they may
  // register servers for (the owner switch, `?as=slug`, fills the name's owner part in).
  const owners = await ownerChoice(context, url, true);
  if (!params.owner || !params.name) return { mode: "new" as const, username: context.viewer.username, owners, server: null };
  try {
    const server = await getMyServer(context.db, context.viewer, `${params.owner}/${params.name}`);
    return { mode: "edit" as const, username: context.viewer.username, owners, server };
  } catch (e) {
    // Someone else's server, or an organisation's its members may not edit: said in the API's words.
    if (e instanceof AppError && e.code === "forbidden") throw data({ message: e.message }, { status: 403 });
    if (e instanceof AppError && e.code === "not_found") throw data({ message: SERVER_FORM_TEXT.loadFailed }, { status: 404 });
    throw e;
  }
}

/** The form's messages about several fields at once, said once at its top. */
const FORM_LEVEL = [SERVER_FORM_TEXT.required];
const SUCCESS_DELAY_MS = 1500;

/** As posted: each connection's Config Schema is JSON text (blank is {}); text that is not JSON stays text, which the API's schema refuses. */
const serverForm = z.preprocess((v) => {
  if (!v || typeof v !== "object" || !Array.isArray((v as { connections?: unknown }).connections)) return v;
  const connections = (v as { connections: unknown[] }).connections.map((c) => {
    if (!c || typeof c !== "object" || typeof (c as { configSchema?: unknown }).configSchema !== "string") return c;
    const text = (c as { configSchema: string }).configSchema;
    if (!text.trim()) return { ...c, configSchema: undefined };
    try {
      return { ...c, configSchema: JSON.parse(text) as unknown };
    } catch {
      return c;
    }
  });
  return { ...v, connections };
}, serverInput);

type Answer = { result?: SubmissionResult<string[]>; message?: string; redirectTo?: string };

export async function action({ request, context, params, url }: Route.ActionArgs) {
  if (!context.viewer) throw redirect(`/login?redirect=${url.pathname}`);
  const editing = Boolean(params.owner && params.name);
  const form = await request.formData();
  const submission = parseForm(form, serverForm, FORM_LEVEL);
  // Add Connection and Remove without JavaScript come back here with the list changed.
  if (submission.status !== "success") return { result: submission.reply() } satisfies Answer;
  const qn = editing ? `${params.owner}/${params.name}` : submission.value.qualifiedName;
  const r = await context.api<OwnedServerView>(editing ? "PUT" : "POST", editing ? `/api/servers/${qn}` : "/api/servers", {
    ...submission.value,
    qualifiedName: qn,
  });
  if (!r.ok) {
    const text = r.error && r.status >= 400 && r.status < 500 ? r.error : SERVER_FORM_TEXT.saveFailed;
    // About the name: taken, or an owner part the viewer may not register under.
    const aboutName = text === SERVER_FORM_TEXT.duplicate || text.startsWith("The owner part") || (!editing && r.status === 403);
    const at = aboutName ? { qualifiedName: [text] } : undefined;
    return { result: at ? submission.reply({ fieldErrors: at }) : submission.reply({ formErrors: [text] }) } satisfies Answer;
  }
  const to = `/server/${r.data.qualifiedName}`;
  // With JavaScript the form says so and goes to the server's page after 1.5 s; without, at once.
  if (isEnhanced(form))
    return { message: editing ? SERVER_FORM_TEXT.updated : SERVER_FORM_TEXT.registered, redirectTo: to } satisfies Answer;
  return finish(form, to);
}

// The form starts again when the owner switch names another owner (its name's owner part changes).
export default function ServerForm(props: Route.ComponentProps) {
  return <ServerFormBody key={props.loaderData.owners.as} {...props} />;
}

function ServerFormBody({ loaderData }: Route.ComponentProps) {
  const editing = loaderData.mode === "edit";
  const { owners } = loaderData;
  const { fetcher, answer, busy } = useActionForm<Answer>("server", { delayMs: SUCCESS_DELAY_MS });
  const [form, fields] = useForm<ServerFormInput>({
    id: "server",
    lastResult: answer?.result,
    defaultValue: initialValues(loaderData.server, owners.as || loaderData.username),
    // The same parse as the action's; typed by the fields as typed (text), not as parsed.
    onValidate: ({ formData }) => parseForm(formData, serverForm, FORM_LEVEL) as unknown as Submission<ServerFormInput>,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const connections = fields.connections.getFieldList();

  return (
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6">
      <Link
        to="/servers"
        className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400"
      >
        <ArrowLeft className="h-4 w-4" aria-hidden /> {SERVER_FORM_TEXT.backToServers}
      </Link>
      <h1 className="mt-4 text-3xl font-bold tracking-tight">{editing ? SERVER_FORM_TEXT.editTitle : SERVER_FORM_TEXT.newTitle}</h1>
      {!editing && <OwnerSwitch choice={owners} path="/servers/server/new" label={ORG_TEXT.registerAs} hint={ORG_TEXT.registerAsHint} />}
      <fetcher.Form method="post" {...getFormProps(form)} className="mt-8 space-y-8">
        {/* Enter in a field saves; it does not press Remove or Add Connection (the first submit button is the default). */}
        <button type="submit" hidden tabIndex={-1} />
        <Enhanced />
        <div aria-live="polite">
          <FormError form={form} text={form.errors?.[0]} />
          {answer?.message && <Alert kind="success">{answer.message}</Alert>}
        </div>
        <fieldset className={formSection} disabled={busy}>
          <legend className={formLegend}>Server</legend>
          <FormField
            meta={fields.qualifiedName}
            label="Qualified Name *"
            hint={editing ? "The qualified name cannot be changed." : nameHint(loaderData.username, owners.orgs)}
          >
            <input
              {...getInputProps(fields.qualifiedName, { type: "text", ariaDescribedBy: `${fields.qualifiedName.id}-hint` })}
              readOnly={editing}
              aria-readonly={editing}
              className={`${inputClass} font-mono ${editing ? "bg-slate-100 dark:bg-slate-800" : ""}`}
            />
          </FormField>
          <FormField meta={fields.displayName} label="Display Name *">
            <input {...getInputProps(fields.displayName, { type: "text" })} className={inputClass} />
          </FormField>
          <FormField meta={fields.description} label="Description *">
            <textarea {...getTextareaProps(fields.description)} rows={3} className={inputClass} />
          </FormField>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField meta={fields.version} label="Version">
              <input {...getInputProps(fields.version, { type: "text" })} className={`${inputClass} font-mono`} />
            </FormField>
            <FormField meta={fields.keywords} label="Keywords" hint="Comma separated, e.g. weather, forecast">
              <input
                {...getInputProps(fields.keywords, { type: "text", ariaDescribedBy: `${fields.keywords.id}-hint` })}
                className={inputClass}
              />
            </FormField>
            <FormField meta={fields.homepage} label="Homepage">
              <input {...getInputProps(fields.homepage, { type: "url" })} placeholder="https://" className={inputClass} />
            </FormField>
            <FormField meta={fields.repositoryUrl} label="Repository URL">
              <input
                {...getInputProps(fields.repositoryUrl, { type: "url" })}
                placeholder="https://github.com/..."
                className={inputClass}
              />
            </FormField>
          </div>
        </fieldset>

        <DocumentationEditor meta={fields.documentation} disabled={busy} />

        <fieldset className={formSection} disabled={busy}>
          <legend className={formLegend}>Connections</legend>
          {connections.map((c, i) => (
            <ConnectionFields
              key={c.key}
              meta={c}
              index={i}
              removable={connections.length >= 2}
              removeButton={form.remove.getButtonProps({ name: fields.connections.name, index: i })}
            />
          ))}
          <Button
            type="submit"
            variant="secondary"
            size="sm"
            {...form.insert.getButtonProps({ name: fields.connections.name, defaultValue: { type: "ws", url: "", configSchema: "" } })}
          >
            <Plus className="h-4 w-4" aria-hidden /> Add Connection
          </Button>
        </fieldset>

        <Button type="submit" size="lg" disabled={busy}>
          {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy ? "Saving..." : editing ? "Save Changes" : "Register Server"}
        </Button>
      </fetcher.Form>
    </div>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const message = (error as { data?: { message?: string } })?.data?.message ?? SERVER_FORM_TEXT.loadFailed;
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-2xl font-bold">{message}</h1>
      <Link to="/servers" className="mt-6 inline-flex items-center gap-1 font-medium text-indigo-600 hover:underline dark:text-indigo-400">
        <ArrowLeft className="h-4 w-4" aria-hidden /> {SERVER_FORM_TEXT.backToServers}
      </Link>
    </section>
  );
}
