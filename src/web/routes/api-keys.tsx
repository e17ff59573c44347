import { getFormProps, getInputProps, getSelectProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { KeyRound, Loader2 } from "~/web/components/icons";
import { useState } from "react";
import { Link, redirect } from "react-router";
import { Toaster } from "sonner";
import { listApiKeys } from "../../server/features/api-keys/api-keys";
import type { ConnectionView } from "../../shared/connections";
import type { DeploymentView } from "../../shared/deployments";
import { API_KEY_TEXT, apiKeyCreate, EXPIRY_TEXT, KEY_EXPIRIES, KEY_SCOPES, SCOPE_TEXT, type ApiKeyView } from "../../shared/publishers";
import { KeyRow } from "../components/api-keys/KeyRow";
import { NewKeyPanel } from "../components/api-keys/NewKeyPanel";
import { ConnectedApps } from "../components/ConnectedApps";
import { Alert, Button, inputClass } from "../components/ui";
import { WAY_IN_TEXT } from "../../shared/way-in";
import { safeRedirect } from "../../shared/auth";
import { field, finish } from "../lib/actions.server";
import { newKeyCookie } from "../lib/new-key-flash.server";
import { Enhanced, FieldError, useActionForm } from "../lib/forms";
import { useTheme } from "../lib/theme";
import type { Route } from "./+types/api-keys";

export function meta() {
  return [{ title: API_KEY_TEXT.title }];
}

export async function loader({ context, url }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/servers/apikeys");
  // The servers the viewer has deployed or connected, and their toolsets: a key may be limited to
  // some of them. A connection by URL is `remote:<name>`, a toolset `toolset:<name>`.
  const [deployed, connections] = await Promise.all([
    context.api<DeploymentView[]>("GET", "/api/deployments"),
    context.api<ConnectionView[]>("GET", "/api/connections"),
  ]);
  const byUrl = new Set(connections.ok ? connections.data.filter((c) => c.entry === null).map((c) => c.id) : []);
  const idOf = (d: DeploymentView) =>
    d.source.startsWith("toolset:") ? `toolset:${d.server_id}` : byUrl.has(d.id) ? `remote:${d.server_id}` : d.server_id;
  const servers = deployed.ok ? [...new Set(deployed.data.map(idOf))].sort() : [];
  // From a server page's "create one for this server only": the form starts limited to it.
  const wanted = url.searchParams.get("for");
  const forServer = wanted ? (servers.find((s) => s === wanted || s.replace(/^(remote|toolset):/, "") === wanted) ?? null) : null;
  // ... and, from that server's own page, goes back there with the key (returnPage checks it).
  const back = forServer ? returnPage(url.searchParams.get("back"), [forServer], ["mcp"]) : null;
  try {
    return { keys: await listApiKeys(context.db, context.viewer), failed: false, servers, forServer, back, now: Date.now() };
  } catch {
    return { keys: [] as ApiKeyView[], failed: true, servers, forServer, back, now: Date.now() };
  }
}

/**
 * The server page a key made from it goes back to: `/server/{id}` for a server the key opens
 * (limited to it, or to every deployment) with the `mcp` scope; else null and the key is shown
 * here as always. Only that path shape, so nothing here redirects anywhere else.
 */
function returnPage(back: string | null, resources: string[], scopes: string[]): string | null {
  if (!back || safeRedirect(back, "") !== back || !back.startsWith("/server/")) return null;
  const id = back.slice("/server/".length);
  if (!/^[\w.-]+(\/[\w.-]+)?$/.test(id) || !scopes.includes("mcp")) return null;
  return resources.length === 0 || resources.includes(id) ? back : null;
}

/** The key form's fields as posted (apiKeyCreateBody). */
type KeyForm = { name: string; scopes: string[]; resources: string[]; expiry: string; expiresAt: string };

type Answer = {
  result?: SubmissionResult<string[]>;
  message?: { kind: "error" | "success"; text: string };
  apiKey?: string;
  redirectTo?: string;
};

// Creating and revoking keys: the API's own calls, with the spec's messages (docs/product.md#api-keys).
export async function action({ request, context }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/servers/apikeys");
  const form = await request.formData();
  if (field(form, "intent") === "revoke") {
    const name = field(form, "name");
    const r = await context.api("DELETE", `/api/auth/apikeys/${encodeURIComponent(name)}`);
    return {
      message: r.ok ? { kind: "success", text: API_KEY_TEXT.revoked(name) } : { kind: "error", text: API_KEY_TEXT.revokeFailed },
    } satisfies Answer;
  }
  const submission = parseWithZod(form, { schema: apiKeyCreate });
  if (submission.status !== "success") return { result: submission.reply() } satisfies Answer;
  const v = submission.value;
  const r = await context.api<{ apiKey: string }>("POST", "/api/auth/apikeys", {
    name: v.name,
    scopes: v.scopes,
    resources: v.resources ?? undefined,
    expiresAt: v.expiresAt?.toISOString(),
  });
  if (!r.ok) {
    // A name already taken is said at the name; anything else is the spec's failure text.
    if (r.status === 409 || r.status === 400)
      return { result: submission.reply({ fieldErrors: { name: [r.error ?? API_KEY_TEXT.generateFailed] } }) } satisfies Answer;
    return { result: submission.reply({ formErrors: [API_KEY_TEXT.generateFailed] }) } satisfies Answer;
  }
  // Made from a server page: back there, the key going along sealed in a one-read cookie
  // (lib/new-key-flash.server.ts), never in the URL.
  const back = returnPage(field(form, "back"), v.resources ?? [], v.scopes);
  if (back) {
    const cookie = await newKeyCookie(context, { name: v.name, value: r.data.apiKey }, back.slice("/server/".length));
    return finish(form, back, new Headers({ "Set-Cookie": cookie }));
  }
  // The key itself is in this answer only: shown once, never stored or sent again.
  return {
    result: submission.reply({ resetForm: true }),
    apiKey: r.data.apiKey,
    message: { kind: "success", text: API_KEY_TEXT.generated },
  } satisfies Answer;
}

export default function ApiKeys({ loaderData }: Route.ComponentProps) {
  const theme = useTheme();
  const { fetcher, answer, busy } = useActionForm<Answer>("apikeys");
  const pending = fetcher.formData;
  const creating = busy && pending?.get("intent") !== "revoke";
  const revoking = busy && pending?.get("intent") === "revoke" ? String(pending.get("name")) : null;
  const [form, fields] = useForm<KeyForm, (typeof apiKeyCreate)["_output"]>({
    id: "apikey",
    lastResult: answer?.result,
    // A new key lasts 90 days unless its maker says otherwise (also what a reset form goes back to).
    defaultValue: loaderData.forServer
      ? { expiry: "90", name: uniqueName(`${loaderData.forServer} client`, loaderData.keys), resources: [loaderData.forServer] }
      : { expiry: "90" },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: apiKeyCreate }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  // The panel with the new key can be dismissed; a newer key shows again.
  const [dismissed, setDismissed] = useState<string | null>(null);
  // Copying says so until the next answer; its check mark lasts 1 s.
  const [copyNote, setCopyNote] = useState<{ after: Answer | undefined; kind: "error" | "success"; text: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const fresh = answer?.apiKey && answer.apiKey !== dismissed ? answer.apiKey : null;
  const note = copyNote && copyNote.after === answer ? copyNote : null;
  const msg = note ?? answer?.message ?? (loaderData.failed ? { kind: "error" as const, text: API_KEY_TEXT.loadFailed } : null);
  const formError = form.errors?.[0];
  // What was ticked when a post came back refused (without JavaScript); else the default, mcp.
  const initialScopes = fields.scopes.initialValue as string | string[] | undefined;
  const chosenScopes = initialScopes === undefined ? null : ([] as string[]).concat(initialScopes);
  const chosenResources = ([] as string[]).concat((fields.resources.initialValue as string | string[] | undefined) ?? []);

  async function copy() {
    if (!fresh) return;
    try {
      await navigator.clipboard.writeText(fresh);
      setCopyNote({ after: answer, kind: "success", text: API_KEY_TEXT.copied });
      setCopied(true);
      setTimeout(() => setCopied(false), 1000);
    } catch {
      setCopyNote({ after: answer, kind: "error", text: "Copying failed: select the key and copy it by hand." });
    }
  }

  return (
    <section className="mx-auto max-w-3xl px-4 py-10">
      <Toaster theme={theme} richColors closeButton position="top-center" />
      <h1 className="flex items-center gap-2 text-3xl font-bold">
        <KeyRound className="h-7 w-7 text-indigo-500" aria-hidden /> {API_KEY_TEXT.title}
      </h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        Use a key as <code className="rounded bg-slate-100 px-1 dark:bg-slate-800">Authorization: Bearer &lt;key&gt;</code> with the API and
        with your deployed servers&apos; URLs. A key opens only what its scopes say, never your account, billing or other keys: those need
        you signed in. Give each client its own key, limit it to the deployments it needs, and revoke one you no longer use.
      </p>

      <div className="mt-6 space-y-3" aria-live="polite">
        {formError && (
          <div id={form.errorId}>
            <Alert kind="error">{formError}</Alert>
          </div>
        )}
        {msg && <Alert kind={msg.kind}>{msg.text}</Alert>}
        {fresh && <NewKeyPanel apiKey={fresh} copied={copied} onCopy={() => void copy()} onDismiss={() => setDismissed(fresh)} />}
      </div>

      <fetcher.Form
        method="post"
        {...getFormProps(form)}
        className="mt-6 space-y-4 rounded-xl border border-slate-200 p-4 dark:border-slate-800"
      >
        <Enhanced />
        {loaderData.back && loaderData.forServer && (
          <>
            <input type="hidden" name="back" value={loaderData.back} />
            <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="key-returns">
              {WAY_IN_TEXT.returnsTo(loaderData.forServer)}{" "}
              <Link to={loaderData.back} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                {WAY_IN_TEXT.backTo(loaderData.forServer)}
              </Link>
            </p>
          </>
        )}
        <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
          <div className="flex-1">
            <label htmlFor={fields.name.id} className="block text-sm font-medium">
              New key name
            </label>
            <input
              {...getInputProps(fields.name, { type: "text" })}
              placeholder="e.g. laptop, CI, Claude Desktop"
              maxLength={100}
              className={`mt-1 ${inputClass}`}
              disabled={creating}
            />
            <FieldError meta={fields.name} />
          </div>
          <Button type="submit" name="intent" value="create" disabled={creating} className="sm:mt-6">
            {creating ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <KeyRound className="h-4 w-4" aria-hidden />}
            {creating ? "Generating..." : "Generate API Key"}
          </Button>
        </div>
        <fieldset aria-describedby={fields.scopes.errors?.length ? fields.scopes.errorId : undefined}>
          <legend className="text-sm font-medium">{API_KEY_TEXT.scopesLabel}</legend>
          <div className="mt-1 grid gap-2 sm:grid-cols-3">
            {KEY_SCOPES.map((scope) => (
              <label key={scope} className="flex items-start gap-2 text-sm">
                <input
                  type="checkbox"
                  name="scopes"
                  value={scope}
                  defaultChecked={chosenScopes ? chosenScopes.includes(scope) : scope === "mcp"}
                  className="mt-1 h-4 w-4 accent-indigo-600"
                  disabled={creating}
                />
                <span>
                  <span className="font-mono font-medium">{SCOPE_TEXT[scope].label}</span>
                  <span className="block text-xs text-slate-600 dark:text-slate-400">{SCOPE_TEXT[scope].help}</span>
                </span>
              </label>
            ))}
          </div>
          <FieldError meta={fields.scopes} />
        </fieldset>
        <div className="grid gap-3 sm:grid-cols-2">
          <div>
            <label htmlFor={fields.expiry.id} className="block text-sm font-medium">
              {API_KEY_TEXT.expiryLabel}
            </label>
            <select {...getSelectProps(fields.expiry)} className={`mt-1 ${inputClass}`} disabled={creating}>
              {KEY_EXPIRIES.map((e) => (
                <option key={e} value={e}>
                  {EXPIRY_TEXT[e]}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor={fields.expiresAt.id} className="block text-sm font-medium">
              Date (for &ldquo;{EXPIRY_TEXT.custom}&rdquo;)
            </label>
            <input
              {...getInputProps(fields.expiresAt, { type: "date" })}
              min={new Date(loaderData.now + 86_400_000).toISOString().slice(0, 10)}
              className={`mt-1 ${inputClass}`}
              disabled={creating}
            />
            <FieldError meta={fields.expiresAt} />
          </div>
        </div>
        {loaderData.servers.length > 0 && (
          <fieldset>
            <legend className="text-sm font-medium">{API_KEY_TEXT.resourcesLabel}</legend>
            <p className="text-xs text-slate-600 dark:text-slate-400">None ticked: {API_KEY_TEXT.resourcesAll.toLowerCase()}.</p>
            <div className="mt-1 flex flex-wrap gap-3">
              {loaderData.servers.map((id) => (
                <label key={id} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    name="resources"
                    value={id}
                    defaultChecked={chosenResources.includes(id)}
                    className="h-4 w-4 accent-indigo-600"
                    disabled={creating}
                  />
                  <span className="font-mono">{id}</span>
                </label>
              ))}
            </div>
          </fieldset>
        )}
      </fetcher.Form>

      <h2 className="mt-10 text-lg font-semibold">Your keys</h2>
      {loaderData.keys.length === 0 ? (
        <p className="mt-3 rounded-xl border border-dashed border-slate-300 p-8 text-center text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {API_KEY_TEXT.empty}
        </p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
          {loaderData.keys.map((k) => (
            <KeyRow
              key={k.name}
              k={k}
              now={loaderData.now}
              revoking={revoking === k.name}
              onRevoke={() => void fetcher.submit({ intent: "revoke", name: k.name, _enhanced: "1" }, { method: "post" })}
              Form={fetcher.Form}
            />
          ))}
        </ul>
      )}

      <ConnectedApps />
    </section>
  );
}

/** `name`, or `name 2`, `name 3`... when a key already has it. */
function uniqueName(name: string, keys: ApiKeyView[]): string {
  const taken = new Set(keys.map((k) => k.name));
  let n = 1;
  while (taken.has(n === 1 ? name : `${name} ${n}`)) n++;
  return n === 1 ? name : `${name} ${n}`;
}
