import { getFormProps, getInputProps, getSelectProps, getTextareaProps, useForm, type SubmissionResult } from "@conform-to/react";
import { ArrowLeft, Info, Loader2, Lock, Plus, X } from "lucide-react";
import { useState } from "react";
import { data, Link } from "react-router";
import type { z } from "zod";
import { CATEGORIES, SOURCES, SUBMIT_TEXT, TYPES, idFromName, submissionRequest, type RequiredKey } from "../../shared/catalog";
import { Button, buttonClass, formLegend, formSection, inputClass } from "../components/ui";
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

/** A required key is added only when its three parts are filled in (docs/product.md#submit-a-catalogue-entry). */
function draftKey(d: { key: string; env_var: string; description: string }): RequiredKey | null {
  const k = { key: d.key.trim(), env_var: d.env_var.trim(), description: d.description.trim() };
  return k.key && k.env_var && k.description ? k : null;
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
    const reply =
      r.status === 409
        ? submission.reply({ fieldErrors: { id: [SUBMIT_TEXT.duplicate] } })
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
    return (
      <section className="mx-auto max-w-xl px-4 py-24 text-center">
        <Lock className="mx-auto h-10 w-10 text-indigo-500" aria-hidden />
        <h1 className="mt-4 text-2xl font-bold">{SUBMIT_TEXT.authRequired}</h1>
        <p className="mt-2 text-slate-600 dark:text-slate-400">{SUBMIT_TEXT.authRequiredText}</p>
        <div className="mt-8 flex justify-center gap-3">
          <Link to="/login?redirect=/servers/add" className={buttonClass("primary", "lg")}>
            Login
          </Link>
          <Link to="/" className={buttonClass("secondary", "lg")}>
            {SUBMIT_TEXT.backToDirectory}
          </Link>
        </div>
      </section>
    );
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
  const [draft, setDraft] = useState({ key: "", env_var: "", description: "" });
  const [name, setName] = useState(String(fields.name.initialValue ?? ""));
  const submitting = busy && !answer?.success;

  // With JavaScript the list changes here; without it, the same buttons post the form (action above).
  function addKey(e: React.MouseEvent) {
    e.preventDefault();
    const k = draftKey(draft);
    if (!k) return;
    setKeys((all) => [...all, k]);
    setDraft({ key: "", env_var: "", description: "" });
  }
  const keyInput = (part: keyof typeof draft) => ({
    id: `submit-draft-${part}`,
    name: `draft.${part}`,
    value: draft[part],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setDraft({ ...draft, [part]: e.target.value }),
  });

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

          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Required API Keys</legend>
            {keys.length > 0 && !answer?.success && (
              <ul className="space-y-2">
                {(answer?.success ? [] : keys).map((k, i) => (
                  <li
                    key={`${k.env_var}-${i}`}
                    className="flex items-center justify-between rounded-md border border-slate-200 px-3 py-2 text-sm dark:border-slate-700"
                  >
                    <span>
                      {k.key} ({k.env_var})
                    </span>
                    <input type="hidden" name={`required_keys[${i}].key`} value={k.key} />
                    <input type="hidden" name={`required_keys[${i}].env_var`} value={k.env_var} />
                    <input type="hidden" name={`required_keys[${i}].description`} value={k.description} />
                    <Button
                      type={hydrated ? "button" : "submit"}
                      name="intent"
                      value={`remove-key:${i}`}
                      variant="dangerText"
                      size="inline"
                      onClick={(e) => {
                        e.preventDefault();
                        setKeys((all) => all.filter((_, j) => j !== i));
                      }}
                    >
                      <X className="h-4 w-4" aria-hidden /> Remove
                    </Button>
                  </li>
                ))}
              </ul>
            )}
            <div className="grid gap-3 sm:grid-cols-3">
              <div>
                <label htmlFor="submit-draft-key" className="mb-1 block text-sm font-medium">
                  Key Name
                </label>
                <input {...keyInput("key")} placeholder="GitHub Token" className={inputClass} />
              </div>
              <div>
                <label htmlFor="submit-draft-env_var" className="mb-1 block text-sm font-medium">
                  Environment Variable
                </label>
                <input {...keyInput("env_var")} placeholder="GITHUB_TOKEN" className={`${inputClass} font-mono`} />
              </div>
              <div>
                <label htmlFor="submit-draft-description" className="mb-1 block text-sm font-medium">
                  Description
                </label>
                <input {...keyInput("description")} className={inputClass} />
              </div>
            </div>
            <Button type={hydrated ? "button" : "submit"} name="intent" value="add-key" variant="secondary" size="sm" onClick={addKey}>
              <Plus className="h-4 w-4" aria-hidden /> Add Key
            </Button>
          </fieldset>

          <Button type="submit" name="intent" value="submit" size="lg" disabled={busy}>
            {submitting && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {submitting ? SUBMIT_TEXT.submitting : SUBMIT_TEXT.submit}
          </Button>
        </fetcher.Form>
        <aside className="h-fit rounded-xl border border-indigo-200 bg-indigo-50 p-6 text-sm dark:border-indigo-900 dark:bg-indigo-950/40">
          <h2 className="flex items-center gap-2 font-semibold">
            <Info className="h-4 w-4" aria-hidden /> Submission guidelines
          </h2>
          <ul className="mt-3 list-disc space-y-2 pl-5 text-slate-700 dark:text-slate-300">
            <li>Submissions are reviewed for quality, security and usefulness before they appear in the directory.</li>
            <li>Describe what the server does and which keys it needs.</li>
            <li>Link the source repository so reviewers and users can check the code.</li>
            <li>Our team may contact you about your submission.</li>
          </ul>
        </aside>
      </div>
    </div>
  );
}
