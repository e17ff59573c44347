import { getFormProps, getInputProps, getSelectProps, getTextareaProps, useForm, type SubmissionResult } from "@conform-to/react";
import { ArrowLeft, Loader2 } from "~/web/components/icons";
import { useState } from "react";
import { data, Link } from "react-router";
import type { z } from "zod";
import { CATEGORIES, SOURCES, SUBMIT_TEXT, TYPES, idFromName, submissionRequest, type RequiredKey } from "../../shared/catalog";
import { draftKey, RequiredKeysFieldset, type KeyDraft } from "../components/add-server/RequiredKeysFieldset";
import { SignInRequired } from "../components/add-server/SignInRequired";
import { SubmissionGuidelines } from "../components/add-server/SubmissionGuidelines";
import { Button, formLegend, formSection, inputClass } from "../components/ui";
import { field, isEnhanced } from "../lib/actions.server";
import { parseForm } from "../lib/form-parse";
import { Enhanced, FormError, FormField, useActionForm, useHydrated } from "../lib/forms";
import type { Route } from "./+types/add-server";

export function meta() {
  return [{ title: "Add MCP Server" }];
}

export function loader({ context }: Route.LoaderArgs) {
  return { signedIn: Boolean(context.viewer) };
}

const DEFAULTS = { category: "Data & Storage", type: "Community", source: "user_submitted" };
/** Messages about the form as a whole, said once at its top. */
const FORM_LEVEL = [SUBMIT_TEXT.requiredFields];
const SUCCESS_DELAY_MS = 3000;

type SubmissionInput = z.input<typeof submissionRequest>;
type Answer = { result?: SubmissionResult<string[]>; keys?: RequiredKey[]; success?: string; redirectTo?: string };

/** The form's fields that show their own error, by the names the API gives them (a required key's problem is said at the top). */
const FIELD_NAMES: readonly string[] = [
  "id",
  "name",
  "description",
  "category",
  "type",
  "source",
  "tags",
  "url",
  "logo",
  "repository_url",
  "homepage",
  "documentation",
  "npx_command",
] satisfies (keyof SubmissionInput)[];
const fieldOf = (f: string | undefined) => (f && FIELD_NAMES.includes(f) ? f : undefined);

/** The required keys listed so far (hidden fields `required_keys[i].*`). */
function listedKeys(form: FormData): RequiredKey[] {
  const keys: RequiredKey[] = [];
  for (let i = 0; form.has(`required_keys[${i}].env_var`); i++) {
    keys.push({
      key: field(form, `required_keys[${i}].key`),
      env_var: field(form, `required_keys[${i}].env_var`),
      description: field(form, `required_keys[${i}].description`),
    });
  }
  return keys;
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const intent = field(form, "intent");
  // Without JavaScript, Add Key and Remove post the form: it comes back with the list changed.
  if (intent === "add-key" || intent.startsWith("remove-key:")) {
    let keys = listedKeys(form);
    if (intent === "add-key") {
      const k = draftKey({
        key: field(form, "draft.key"),
        env_var: field(form, "draft.env_var"),
        description: field(form, "draft.description"),
      });
      if (k) keys = [...keys, k];
    } else keys = keys.filter((_, i) => i !== Number(intent.slice("remove-key:".length)));
    const values: Record<string, string> = {};
    for (const [k, v] of form) if (typeof v === "string" && !k.startsWith("draft.") && !k.startsWith("required_keys[")) values[k] = v;
    return { keys, result: { initialValue: values } } satisfies Answer;
  }
  const submission = parseForm(form, submissionRequest, FORM_LEVEL);
  if (submission.status !== "success") return { keys: listedKeys(form), result: submission.reply() } satisfies Answer;
  const body = { ...submission.value, required_keys: submission.value.required_keys?.length ? submission.value.required_keys : null };
  const r = await context.api("POST", "/api/mcp-servers", body);
  if (!r.ok) {
    // A refusal about one field (the API's `field`, or a taken ID) is said at that field; the rest at the top.
    const at = r.status === 409 ? "id" : r.status === 400 && r.error !== SUBMIT_TEXT.requiredFields ? fieldOf(r.field) : undefined;
    const reply = at
      ? submission.reply({ fieldErrors: { [at]: [r.status === 409 ? SUBMIT_TEXT.duplicate : r.error!] } })
      : submission.reply({
          formErrors: [
            r.status === 400 && r.error
              ? r.error === SUBMIT_TEXT.requiredFields
                ? r.error
                : SUBMIT_TEXT.failed(r.error)
              : r.status === 401
                ? SUBMIT_TEXT.mustLogin
                : SUBMIT_TEXT.unexpected,
          ],
        });
    return data({ keys: listedKeys(form), result: reply } satisfies Answer, { status: r.status === 401 ? 401 : 200 });
  }
  // The form says so, then the visitor goes home after 3 s (without JavaScript, by a refresh the page asks for).
  return {
    success: SUBMIT_TEXT.success,
    result: submission.reply({ resetForm: true }),
    redirectTo: isEnhanced(form) ? "/" : undefined,
  } satisfies Answer;
}

export default function AddServer({ loaderData }: Route.ComponentProps) {
  if (!loaderData.signedIn) {
    return <SignInRequired />;
  }
  return <SubmitForm />;
}

function SubmitForm() {
  const hydrated = useHydrated();
  const { fetcher, answer, busy } = useActionForm<Answer>("submit", { delayMs: SUCCESS_DELAY_MS });
  const [form, fields] = useForm<SubmissionInput>({
    id: "submit",
    lastResult: answer?.result,
    defaultValue: DEFAULTS,
    onValidate: ({ formData }) => parseForm(formData, submissionRequest, FORM_LEVEL),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const [keys, setKeys] = useState<RequiredKey[]>(answer?.keys ?? []);
  const [draft, setDraft] = useState<KeyDraft>({ key: "", env_var: "", description: "" });
  const [name, setName] = useState(String(fields.name.initialValue ?? ""));
  const submitting = busy && !answer?.success;

  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6">
      <Link
        to="/"
        className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400"
      >
        <ArrowLeft className="h-4 w-4" aria-hidden /> {SUBMIT_TEXT.backToDirectory}
      </Link>
      <h1 className="mt-4 text-3xl font-bold tracking-tight">Add MCP Server</h1>
      <div className="mt-8 grid gap-8 lg:grid-cols-3">
        <fetcher.Form
          method="post"
          {...getFormProps(form)}
          className="min-w-0 space-y-8 lg:col-span-2"
          key={answer?.success ? "sent" : "form"}
        >
          {/* Enter in a field submits the form, not Add Key or Remove (the first submit button is the default). */}
          <button type="submit" name="intent" value="submit" hidden tabIndex={-1} />
          <Enhanced />
          <div aria-live="polite">
            <FormError form={form} text={form.errors?.[0]} />
            {answer?.success && !hydrated && <meta httpEquiv="refresh" content={`${SUCCESS_DELAY_MS / 1000};url=/`} />}
            {answer?.success && (
              <p
                role="status"
                className="rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:border-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-300"
              >
                {answer.success}
              </p>
            )}
          </div>
          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Basic Information</legend>
            <FormField meta={fields.name} label="Server Name *">
              <input
                {...getInputProps(fields.name, { type: "text" })}
                onChange={(e) => setName(e.target.value)}
                placeholder="PostgreSQL MCP"
                className={inputClass}
              />
            </FormField>
            <FormField
              meta={fields.id}
              label="Server ID *"
              hint="Lowercase letters, numbers and hyphens only; must be unique. Leave empty to derive it from the name."
            >
              <input
                {...getInputProps(fields.id, { type: "text", ariaDescribedBy: `${fields.id.id}-hint` })}
                placeholder={idFromName(name) || "postgresql-mcp"}
                className={inputClass}
              />
            </FormField>
            <FormField meta={fields.description} label="Description *">
              <textarea {...getTextareaProps(fields.description)} rows={4} className={inputClass} />
            </FormField>
          </fieldset>

          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Classification</legend>
            <div className="grid gap-4 sm:grid-cols-3">
              {(
                [
                  [fields.category, "Category *", CATEGORIES],
                  [fields.type, "Type *", TYPES],
                  [fields.source, "Source *", SOURCES],
                ] as const
              ).map(([meta, label, options]) => (
                <FormField key={meta.name} meta={meta} label={label}>
                  <select {...getSelectProps(meta)} className={inputClass}>
                    {options.map((c) => (
                      <option key={c}>{c}</option>
                    ))}
                  </select>
                </FormField>
              ))}
            </div>
            <FormField meta={fields.tags} label="Tags *" hint="Comma separated, e.g. database, sql, postgres">
              <input {...getInputProps(fields.tags, { type: "text", ariaDescribedBy: `${fields.tags.id}-hint` })} className={inputClass} />
            </FormField>
          </fieldset>

          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Links</legend>
            <div className="grid gap-4 sm:grid-cols-2">
              {(
                [
                  [fields.url, "Server URL"],
                  [fields.logo, "Logo URL"],
                  [fields.repository_url, "Repository URL"],
                  [fields.homepage, "Homepage URL"],
                  [fields.documentation, "Documentation URL"],
                ] as const
              ).map(([meta, label]) => (
                <FormField key={meta.name} meta={meta} label={label}>
                  <input {...getInputProps(meta, { type: "url" })} placeholder="https://" className={inputClass} />
                </FormField>
              ))}
              <FormField meta={fields.npx_command} label="NPX Command">
                <input
                  {...getInputProps(fields.npx_command, { type: "text" })}
                  placeholder="npx -y @scope/server or uvx mcp-server-name"
                  className={`${inputClass} font-mono`}
                />
              </FormField>
            </div>
          </fieldset>

          <RequiredKeysFieldset
            keys={keys}
            setKeys={setKeys}
            draft={draft}
            setDraft={setDraft}
            sent={Boolean(answer?.success)}
            hydrated={hydrated}
            disabled={busy}
          />

          <Button type="submit" name="intent" value="submit" size="lg" disabled={busy}>
            {submitting && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {submitting ? SUBMIT_TEXT.submitting : SUBMIT_TEXT.submit}
          </Button>
        </fetcher.Form>
        <SubmissionGuidelines />
      </div>
    </div>
  );
}
