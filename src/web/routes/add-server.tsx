import { ArrowLeft, Info, Loader2, Lock, Plus, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import { CATEGORIES, SOURCES, SUBMIT_TEXT, TYPES, idFromName, submissionRequest, type RequiredKey } from "../../shared/catalog";
import { Alert, Button, buttonClass, Field, formLegend, formSection, inputClass } from "../components/ui";
import { api } from "../lib/api";
import { formMessage } from "../lib/validation";
import type { Route } from "./+types/add-server";

export function meta() {
  return [{ title: "Add MCP Server" }];
}

export function loader({ context }: Route.LoaderArgs) {
  return { signedIn: Boolean(context.viewer) };
}

const EMPTY = {
  name: "",
  id: "",
  description: "",
  category: "Data & Storage",
  type: "Community",
  source: "user_submitted",
  tags: "",
  url: "",
  logo: "",
  repository_url: "",
  homepage: "",
  documentation: "",
  npx_command: "",
};
type FormState = typeof EMPTY;


export default function AddServer({ loaderData }: Route.ComponentProps) {
  const navigate = useNavigate();
  const [form, setForm] = useState<FormState>(EMPTY);
  const [keys, setKeys] = useState<RequiredKey[]>([]);
  const [draft, setDraft] = useState<RequiredKey>({ key: "", env_var: "", description: "" });
  const [busy, setBusy] = useState(false);
  const [msg, setMsg] = useState<{ kind: "error" | "success"; text: string } | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

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

  const set = (k: keyof FormState) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));

  function addKey() {
    // Added only when all three parts are filled in (docs/product.md#submit-a-catalogue-entry).
    if (!draft.key.trim() || !draft.env_var.trim() || !draft.description.trim()) return;
    setKeys((k) => [...k, { key: draft.key.trim(), env_var: draft.env_var.trim(), description: draft.description.trim() }]);
    setDraft({ key: "", env_var: "", description: "" });
  }

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setMsg(null);
    const tags = form.tags.split(",").map((t) => t.trim()).filter(Boolean);
    const body = { ...form, id: form.id.trim() || idFromName(form.name), tags, required_keys: keys.length ? keys : null };
    // The schema the API validates with: a missing required field is named first, any other
    // problem reads as the API's answer would.
    const input = submissionRequest.safeParse(body);
    if (!input.success) {
      const text = formMessage(input.error, [SUBMIT_TEXT.requiredFields]);
      setMsg({ kind: "error", text: text === SUBMIT_TEXT.requiredFields ? text : SUBMIT_TEXT.failed(text) });
      return;
    }
    setBusy(true);
    const r = await api("/api/mcp-servers", { body, timeoutMs: 20_000 });
    setBusy(false);
    if (r.ok) {
      setMsg({ kind: "success", text: SUBMIT_TEXT.success });
      setForm(EMPTY);
      setKeys([]);
      timer.current = setTimeout(() => navigate("/"), 3000);
    } else if (r.status === 409) {
      setMsg({ kind: "error", text: SUBMIT_TEXT.duplicate });
    } else if (r.status === 400 && r.error) {
      setMsg({ kind: "error", text: r.error === SUBMIT_TEXT.requiredFields ? r.error : SUBMIT_TEXT.failed(r.error) });
    } else if (r.status === 401) {
      setMsg({ kind: "error", text: SUBMIT_TEXT.mustLogin });
    } else {
      setMsg({ kind: "error", text: SUBMIT_TEXT.unexpected });
    }
  }

  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6">
      <Link to="/" className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400">
        <ArrowLeft className="h-4 w-4" aria-hidden /> {SUBMIT_TEXT.backToDirectory}
      </Link>
      <h1 className="mt-4 text-3xl font-bold tracking-tight">Add MCP Server</h1>
      <div className="mt-8 grid gap-8 lg:grid-cols-3">
        <form onSubmit={onSubmit} noValidate className="space-y-8 lg:col-span-2">
          {msg && <Alert kind={msg.kind}>{msg.text}</Alert>}
          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Basic Information</legend>
            <Field id="name" label="Server Name *">
              <input id="name" value={form.name} onChange={set("name")} placeholder="PostgreSQL MCP" required className={inputClass} />
            </Field>
            <Field id="id" label="Server ID *" hint="Lowercase letters, numbers and hyphens only; must be unique. Leave empty to derive it from the name.">
              <input id="id" value={form.id} onChange={set("id")} placeholder={idFromName(form.name) || "postgresql-mcp"} required className={inputClass} aria-describedby="id-hint" />
            </Field>
            <Field id="description" label="Description *">
              <textarea id="description" value={form.description} onChange={set("description")} rows={4} required className={inputClass} />
            </Field>
          </fieldset>

          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Classification</legend>
            <div className="grid gap-4 sm:grid-cols-3">
              <Field id="category" label="Category *">
                <select id="category" value={form.category} onChange={set("category")} required className={inputClass}>
                  {CATEGORIES.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
              </Field>
              <Field id="type" label="Type *">
                <select id="type" value={form.type} onChange={set("type")} required className={inputClass}>
                  {TYPES.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
              </Field>
              <Field id="source" label="Source *">
                <select id="source" value={form.source} onChange={set("source")} required className={inputClass}>
                  {SOURCES.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
              </Field>
            </div>
            <Field id="tags" label="Tags *" hint="Comma separated, e.g. database, sql, postgres">
              <input id="tags" value={form.tags} onChange={set("tags")} required className={inputClass} aria-describedby="tags-hint" />
            </Field>
          </fieldset>

          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Links</legend>
            <div className="grid gap-4 sm:grid-cols-2">
              {(
                [
                  ["url", "Server URL"],
                  ["logo", "Logo URL"],
                  ["repository_url", "Repository URL"],
                  ["homepage", "Homepage URL"],
                  ["documentation", "Documentation URL"],
                ] as const
              ).map(([k, label]) => (
                <Field key={k} id={k} label={label}>
                  <input id={k} type="url" value={form[k]} onChange={set(k)} placeholder="https://" className={inputClass} />
                </Field>
              ))}
              <Field id="npx_command" label="NPX Command">
                <input id="npx_command" value={form.npx_command} onChange={set("npx_command")} placeholder="npx -y @scope/server or uvx mcp-server-name" className={`${inputClass} font-mono`} />
              </Field>
            </div>
          </fieldset>

          <fieldset className={formSection} disabled={busy}>
            <legend className={formLegend}>Required API Keys</legend>
            {keys.length > 0 && (
              <ul className="space-y-2">
                {keys.map((k, i) => (
                  <li key={`${k.env_var}-${i}`} className="flex items-center justify-between rounded-md border border-slate-200 px-3 py-2 text-sm dark:border-slate-700">
                    <span>
                      {k.key} ({k.env_var})
                    </span>
                    <Button variant="dangerText" size="inline" onClick={() => setKeys((all) => all.filter((_, j) => j !== i))}>
                      <X className="h-4 w-4" aria-hidden /> Remove
                    </Button>
                  </li>
                ))}
              </ul>
            )}
            <div className="grid gap-3 sm:grid-cols-3">
              <Field id="key-name" label="Key Name">
                <input id="key-name" value={draft.key} onChange={(e) => setDraft({ ...draft, key: e.target.value })} placeholder="GitHub Token" className={inputClass} />
              </Field>
              <Field id="key-env" label="Environment Variable">
                <input id="key-env" value={draft.env_var} onChange={(e) => setDraft({ ...draft, env_var: e.target.value })} placeholder="GITHUB_TOKEN" className={`${inputClass} font-mono`} />
              </Field>
              <Field id="key-desc" label="Description">
                <input id="key-desc" value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} className={inputClass} />
              </Field>
            </div>
            <Button variant="secondary" size="sm" onClick={addKey}>
              <Plus className="h-4 w-4" aria-hidden /> Add Key
            </Button>
          </fieldset>

          <Button type="submit" size="lg" disabled={busy}>
            {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {busy ? SUBMIT_TEXT.submitting : SUBMIT_TEXT.submit}
          </Button>
        </form>
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
