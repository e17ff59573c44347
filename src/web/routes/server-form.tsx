import { ArrowLeft, Eye, Loader2, Pencil, Plus, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { data, Link, redirect, useNavigate } from "react-router";
import { AppError } from "../../server/errors";
import { getMyServer } from "../../server/features/publishers/service";
import { CONNECTION_TYPES, DEFAULT_VERSION, SERVER_FORM_TEXT, serverInput, splitKeywords, type OwnedServerView } from "../../shared/publishers";
import { Alert, Button, Field, formLegend, formSection, inputClass } from "../components/ui";
import { Markdown } from "../components/Markdown";
import { api } from "../lib/api";
import { formMessage } from "../lib/validation";
import type { Route } from "./+types/server-form";

export function meta({ params }: Route.MetaArgs) {
  return [{ title: params.owner ? SERVER_FORM_TEXT.editTitle : SERVER_FORM_TEXT.newTitle }];
}

export async function loader({ context, params, request }: Route.LoaderArgs) {
  const path = new URL(request.url).pathname;
  if (!context.viewer) throw redirect(`/login?redirect=${path}`);
  if (!params.owner || !params.name) return { mode: "new" as const, username: context.viewer.username, server: null };
  try {
    const server = await getMyServer(context.db, context.viewer, `${params.owner}/${params.name}`);
    return { mode: "edit" as const, username: context.viewer.username, server };
  } catch (e) {
    if (e instanceof AppError && e.code === "forbidden") throw data({ message: SERVER_FORM_TEXT.notOwner }, { status: 403 });
    if (e instanceof AppError && e.code === "not_found") throw data({ message: SERVER_FORM_TEXT.loadFailed }, { status: 404 });
    throw e;
  }
}

interface ConnectionDraft {
  type: string;
  url: string;
  configSchema: string;
}
const emptyConnection = (): ConnectionDraft => ({ type: "ws", url: "", configSchema: "" });

/** The form's own checks, reported first and in this order; past them, the API's first message. */
const FORM_CHECKS = [SERVER_FORM_TEXT.required, SERVER_FORM_TEXT.qualifiedNameFormat, SERVER_FORM_TEXT.connectionRequired, SERVER_FORM_TEXT.configSchemaJson];

/** A Config Schema as typed: blank is {}, and text that is not JSON stays text, which the schema refuses. */
function parseConfigSchema(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function initial(server: OwnedServerView | null, username: string) {
  if (!server)
    return {
      form: { qualifiedName: `${username}/`, displayName: "", description: "", version: DEFAULT_VERSION, homepage: "", repositoryUrl: "", keywords: "", documentation: "" },
      connections: [emptyConnection()],
    };
  return {
    form: {
      qualifiedName: server.qualifiedName,
      displayName: server.displayName,
      description: server.description,
      version: server.version,
      homepage: server.homepage ?? "",
      repositoryUrl: server.repositoryUrl ?? "",
      keywords: server.keywords.join(", "),
      documentation: server.documentation ?? "",
    },
    connections: server.connections.map((c) => ({
      type: c.type,
      url: c.url,
      configSchema: Object.keys(c.configSchema).length ? JSON.stringify(c.configSchema, null, 2) : "",
    })),
  };
}


export default function ServerForm({ loaderData }: Route.ComponentProps) {
  const editing = loaderData.mode === "edit";
  const navigate = useNavigate();
  const start = initial(loaderData.server, loaderData.username);
  const [form, setForm] = useState(start.form);
  const [connections, setConnections] = useState<ConnectionDraft[]>(start.connections);
  const [preview, setPreview] = useState(false);
  const [busy, setBusy] = useState(false);
  const [msg, setMsg] = useState<{ kind: "error" | "success"; text: string } | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const setConn = (i: number, k: keyof ConnectionDraft, v: string) => setConnections((cs) => cs.map((c, j) => (j === i ? { ...c, [k]: v } : c)));

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setMsg(null);
    const qualifiedName = form.qualifiedName.trim();
    const body = {
      ...form,
      qualifiedName,
      keywords: splitKeywords(form.keywords),
      connections: connections.map((c) => ({ type: c.type, url: c.url.trim(), configSchema: parseConfigSchema(c.configSchema) })),
    };
    // The schema the API validates with, so the page and the API give the same messages.
    const input = serverInput.safeParse(body);
    if (!input.success) {
      setMsg({ kind: "error", text: formMessage(input.error, FORM_CHECKS) });
      return;
    }
    setBusy(true);
    const r = await api<OwnedServerView>(editing ? `/api/servers/${qualifiedName}` : "/api/servers", {
      method: editing ? "PUT" : "POST",
      body,
      timeoutMs: 20_000,
    });
    setBusy(false);
    if (!r.ok) {
      setMsg({ kind: "error", text: r.error && r.status >= 400 && r.status < 500 ? r.error : SERVER_FORM_TEXT.saveFailed });
      return;
    }
    setMsg({ kind: "success", text: editing ? SERVER_FORM_TEXT.updated : SERVER_FORM_TEXT.registered });
    timer.current = setTimeout(() => navigate(`/server/${r.data.qualifiedName}`), 1500);
  }

  return (
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6">
      <Link to="/servers" className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400">
        <ArrowLeft className="h-4 w-4" aria-hidden /> {SERVER_FORM_TEXT.backToServers}
      </Link>
      <h1 className="mt-4 text-3xl font-bold tracking-tight">{editing ? SERVER_FORM_TEXT.editTitle : SERVER_FORM_TEXT.newTitle}</h1>
      <form onSubmit={onSubmit} noValidate className="mt-8 space-y-8">
        <div aria-live="polite">{msg && <Alert kind={msg.kind}>{msg.text}</Alert>}</div>
        <fieldset className={formSection} disabled={busy}>
          <legend className={formLegend}>Server</legend>
          <Field id="qualifiedName" label="Qualified Name *" hint={editing ? "The qualified name cannot be changed." : `owner/name, where owner is your username (${loaderData.username}).`}>
            <input id="qualifiedName" value={form.qualifiedName} onChange={set("qualifiedName")} readOnly={editing} aria-readonly={editing} className={`${inputClass} font-mono ${editing ? "bg-slate-100 dark:bg-slate-800" : ""}`} aria-describedby="qualifiedName-hint" />
          </Field>
          <Field id="displayName" label="Display Name *">
            <input id="displayName" value={form.displayName} onChange={set("displayName")} className={inputClass} />
          </Field>
          <Field id="description" label="Description *">
            <textarea id="description" value={form.description} onChange={set("description")} rows={3} className={inputClass} />
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id="version" label="Version">
              <input id="version" value={form.version} onChange={set("version")} className={`${inputClass} font-mono`} />
            </Field>
            <Field id="keywords" label="Keywords" hint="Comma separated, e.g. weather, forecast">
              <input id="keywords" value={form.keywords} onChange={set("keywords")} className={inputClass} aria-describedby="keywords-hint" />
            </Field>
            <Field id="homepage" label="Homepage">
              <input id="homepage" type="url" value={form.homepage} onChange={set("homepage")} placeholder="https://" className={inputClass} />
            </Field>
            <Field id="repositoryUrl" label="Repository URL">
              <input id="repositoryUrl" type="url" value={form.repositoryUrl} onChange={set("repositoryUrl")} placeholder="https://github.com/..." className={inputClass} />
            </Field>
          </div>
        </fieldset>

        <fieldset className={formSection} disabled={busy}>
          <legend className={formLegend}>Documentation</legend>
          <div className="flex gap-2" role="tablist" aria-label="Documentation editor">
            <Button role="tab" aria-selected={!preview} onClick={() => setPreview(false)} variant={preview ? "secondary" : "primary"} size="sm">
              <Pencil className="h-4 w-4" aria-hidden /> Write
            </Button>
            <Button role="tab" aria-selected={preview} onClick={() => setPreview(true)} variant={preview ? "primary" : "secondary"} size="sm">
              <Eye className="h-4 w-4" aria-hidden /> Preview
            </Button>
          </div>
          {preview ? (
            <div className="min-h-40 rounded-md border border-slate-200 p-4 dark:border-slate-800" data-testid="doc-preview">
              {form.documentation.trim() ? <Markdown>{form.documentation}</Markdown> : <p className="text-slate-500">Nothing to preview yet.</p>}
            </div>
          ) : (
            <textarea id="documentation" aria-label="Documentation (Markdown)" value={form.documentation} onChange={set("documentation")} rows={8} placeholder="# My server&#10;&#10;What it does, its tools, how to configure it." className={`${inputClass} font-mono text-sm`} />
          )}
        </fieldset>

        <fieldset className={formSection} disabled={busy}>
          <legend className={formLegend}>Connections</legend>
          {connections.map((c, i) => (
            <div key={i} className="space-y-3 rounded-lg border border-slate-200 p-4 dark:border-slate-700" data-testid="connection">
              <div className="flex items-center justify-between">
                <p className="text-sm font-semibold">Connection {i + 1}</p>
                {connections.length >= 2 && (
                  <Button variant="dangerText" size="inline" onClick={() => setConnections((cs) => cs.filter((_, j) => j !== i))}>
                    <X className="h-4 w-4" aria-hidden /> Remove
                  </Button>
                )}
              </div>
              <div className="grid gap-3 sm:grid-cols-4">
                <Field id={`conn-type-${i}`} label="Type">
                  <select id={`conn-type-${i}`} value={c.type} onChange={(e) => setConn(i, "type", e.target.value)} className={inputClass}>
                    {CONNECTION_TYPES.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                </Field>
                <div className="sm:col-span-3">
                  <Field id={`conn-url-${i}`} label="URL">
                    <input id={`conn-url-${i}`} value={c.url} onChange={(e) => setConn(i, "url", e.target.value)} placeholder={c.type === "ws" ? "wss://" : "https://"} className={`${inputClass} font-mono`} />
                  </Field>
                </div>
              </div>
              <Field id={`conn-schema-${i}`} label="Config Schema (JSON)" hint="A JSON Schema of the settings; its required properties become the keys asked for on deploy.">
                <textarea id={`conn-schema-${i}`} value={c.configSchema} onChange={(e) => setConn(i, "configSchema", e.target.value)} rows={4} placeholder='{"type": "object", "required": ["apiKey"], "properties": {"apiKey": {"type": "string"}}}' className={`${inputClass} font-mono text-sm`} aria-describedby={`conn-schema-${i}-hint`} />
              </Field>
            </div>
          ))}
          <Button variant="secondary" size="sm" onClick={() => setConnections((cs) => [...cs, emptyConnection()])}>
            <Plus className="h-4 w-4" aria-hidden /> Add Connection
          </Button>
        </fieldset>

        <Button type="submit" size="lg" disabled={busy}>
          {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy ? "Saving..." : editing ? "Save Changes" : "Register Server"}
        </Button>
      </form>
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
