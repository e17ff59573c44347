import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Check, Copy, KeyRound, Loader2, Trash2, TriangleAlert, X } from "lucide-react";
import { useState } from "react";
import { redirect } from "react-router";
import { Toaster } from "sonner";
import { listApiKeys } from "../../server/features/publishers/api-keys";
import { API_KEY_TEXT, apiKeyCreate, type ApiKeyView } from "../../shared/publishers";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ConnectedApps } from "../components/ConnectedApps";
import { Alert, Button, buttonClass, inputClass } from "../components/ui";
import { field } from "../lib/actions.server";
import { shortDate } from "../lib/dates";
import { Enhanced, FieldError, useActionForm } from "../lib/forms";
import { useTheme } from "../lib/theme";
import type { Route } from "./+types/api-keys";

export function meta() {
  return [{ title: API_KEY_TEXT.title }];
}

export async function loader({ context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/servers/apikeys");
  try {
    return { keys: await listApiKeys(context.db, context.viewer), failed: false };
  } catch {
    return { keys: [] as ApiKeyView[], failed: true };
  }
}

type Answer = { result?: SubmissionResult<string[]>; message?: { kind: "error" | "success"; text: string }; apiKey?: string };

// Creating and revoking keys: the API's own calls, with the spec's messages (docs/product.md#api-keys).
export async function action({ request, context }: Route.ActionArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/servers/apikeys");
  const form = await request.formData();
  if (field(form, "intent") === "revoke") {
    const name = field(form, "name");
    const r = await context.api("DELETE", `/api/auth/apikeys/${encodeURIComponent(name)}`);
    return { message: r.ok ? { kind: "success", text: API_KEY_TEXT.revoked(name) } : { kind: "error", text: API_KEY_TEXT.revokeFailed } } satisfies Answer;
  }
  const submission = parseWithZod(form, { schema: apiKeyCreate });
  if (submission.status !== "success") return { result: submission.reply() } satisfies Answer;
  const r = await context.api<{ apiKey: string }>("POST", "/api/auth/apikeys", submission.value);
  if (!r.ok) {
    // A name already taken is said at the name; anything else is the spec's failure text.
    if (r.status === 409 || r.status === 400) return { result: submission.reply({ fieldErrors: { name: [r.error ?? API_KEY_TEXT.generateFailed] } }) } satisfies Answer;
    return { result: submission.reply({ formErrors: [API_KEY_TEXT.generateFailed] }) } satisfies Answer;
  }
  // The key itself is in this answer only: shown once, never stored or sent again.
  return { result: submission.reply({ resetForm: true }), apiKey: r.data.apiKey, message: { kind: "success", text: API_KEY_TEXT.generated } } satisfies Answer;
}

export default function ApiKeys({ loaderData }: Route.ComponentProps) {
  const theme = useTheme();
  const { fetcher, answer, busy } = useActionForm<Answer>("apikeys");
  const pending = fetcher.formData;
  const creating = busy && pending?.get("intent") !== "revoke";
  const revoking = busy && pending?.get("intent") === "revoke" ? String(pending.get("name")) : null;
  const [form, fields] = useForm({
    id: "apikey",
    lastResult: answer?.result,
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
        with your deployed servers&apos; URLs. Keys act as you; revoke one you no longer use.
      </p>

      <div className="mt-6 space-y-3" aria-live="polite">
        {formError && (
          <div id={form.errorId}>
            <Alert kind="error">{formError}</Alert>
          </div>
        )}
        {msg && <Alert kind={msg.kind}>{msg.text}</Alert>}
        {fresh && (
          <div className="rounded-xl border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950/40" data-testid="new-key">
            <div className="flex items-start justify-between gap-4">
              <p className="flex items-center gap-2 font-semibold text-amber-900 dark:text-amber-200">
                <TriangleAlert className="h-4 w-4" aria-hidden /> {API_KEY_TEXT.onceWarning}
              </p>
              <button type="button" onClick={() => setDismissed(fresh)} aria-label="Dismiss" className="rounded p-1 text-amber-900 hover:bg-amber-100 dark:text-amber-200 dark:hover:bg-amber-900/50">
                <X className="h-4 w-4" aria-hidden />
              </button>
            </div>
            <div className="mt-3 flex items-center gap-2">
              <code className="block flex-1 overflow-x-auto rounded bg-white px-3 py-2 font-mono text-sm dark:bg-slate-900" data-testid="new-key-value" tabIndex={0}>
                {fresh}
              </code>
              <Button onClick={() => void copy()} aria-label="Copy API key">
                {copied ? <Check className="h-4 w-4" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />} Copy
              </Button>
            </div>
          </div>
        )}
      </div>

      <fetcher.Form method="post" {...getFormProps(form)} className="mt-6 flex flex-col gap-3 sm:flex-row sm:items-start">
        <Enhanced />
        <div className="flex-1">
          <label htmlFor={fields.name.id} className="block text-sm font-medium">
            New key name
          </label>
          <input {...getInputProps(fields.name, { type: "text" })} placeholder="e.g. laptop, CI, Claude Desktop" maxLength={100} className={`mt-1 ${inputClass}`} disabled={creating} />
          <FieldError meta={fields.name} />
        </div>
        <Button type="submit" name="intent" value="create" disabled={creating} className="sm:mt-6">
          {creating ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <KeyRound className="h-4 w-4" aria-hidden />}
          {creating ? "Generating..." : "Generate API Key"}
        </Button>
      </fetcher.Form>

      <h2 className="mt-10 text-lg font-semibold">Your keys</h2>
      {loaderData.keys.length === 0 ? (
        <p className="mt-3 rounded-xl border border-dashed border-slate-300 p-8 text-center text-slate-600 dark:border-slate-700 dark:text-slate-400">{API_KEY_TEXT.empty}</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
          {loaderData.keys.map((k) => (
            <KeyRow key={k.name} k={k} revoking={revoking === k.name} onRevoke={() => void fetcher.submit({ intent: "revoke", name: k.name, _enhanced: "1" }, { method: "post" })} Form={fetcher.Form} />
          ))}
        </ul>
      )}

      <ConnectedApps />
    </section>
  );
}

function KeyRow({ k, revoking, onRevoke, Form }: { k: ApiKeyView; revoking: boolean; onRevoke: () => void; Form: ReturnType<typeof useActionForm>["fetcher"]["Form"] }) {
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
      <div>
        <p className="font-medium">{k.name}</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <code>{k.prefix}…</code> · Created {shortDate(k.createdAt)} · {k.lastUsedAt ? `Last used ${shortDate(k.lastUsedAt)}` : "Never used"}
        </p>
      </div>
      <Form method="post">
        <input type="hidden" name="name" value={k.name} />
        <ConfirmDialog
          open={confirming}
          onOpenChange={setConfirming}
          trigger={
            <Button variant="dangerOutline" size="sm" disabled={revoking}>
              {revoking ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Trash2 className="h-4 w-4" aria-hidden />} Revoke<span className="sr-only"> {k.name}</span>
            </Button>
          }
          title={`Revoke the API key "${k.name}"?`}
          description="Anything using it stops working at once."
          confirmLabel="Revoke"
          cancelLabel="Cancel"
          onConfirm={() => {
            setConfirming(false);
            onRevoke();
          }}
          noScript={{
            label: (
              <span className="inline-flex items-center gap-1.5">
                <Trash2 className="h-4 w-4" aria-hidden /> Revoke<span className="sr-only"> {k.name}</span>
              </span>
            ),
            className: buttonClass("dangerOutline", "sm"),
            submit: (
              <Button type="submit" name="intent" value="revoke" variant="danger" size="sm">
                Revoke
              </Button>
            ),
          }}
        />
      </Form>
    </li>
  );
}
