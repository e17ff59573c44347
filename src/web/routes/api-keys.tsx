import { Check, Copy, KeyRound, Loader2, Trash2, TriangleAlert, X } from "lucide-react";
import { useState } from "react";
import { redirect } from "react-router";
import { Toaster } from "sonner";
import { listApiKeys } from "../../server/features/publishers/api-keys";
import { API_KEY_TEXT, apiKeyCreate, type ApiKeyView } from "../../shared/publishers";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ConnectedApps } from "../components/ConnectedApps";
import { Alert, Button, inputClass } from "../components/ui";
import { api } from "../lib/api";
import { shortDate } from "../lib/dates";
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


export default function ApiKeys({ loaderData }: Route.ComponentProps) {
  const theme = useTheme();
  const [keys, setKeys] = useState(loaderData.keys);
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [fresh, setFresh] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [msg, setMsg] = useState<{ kind: "error" | "success"; text: string } | null>(loaderData.failed ? { kind: "error", text: API_KEY_TEXT.loadFailed } : null);

  async function create(e: React.FormEvent) {
    e.preventDefault();
    const input = apiKeyCreate.safeParse({ name });
    if (!input.success) {
      setMsg({ kind: "error", text: input.error.issues[0]?.message ?? API_KEY_TEXT.nameRequired });
      return;
    }
    setBusy(true);
    setMsg(null);
    const r = await api<{ apiKey: string; key: ApiKeyView }>("/api/auth/apikeys", { body: input.data, timeoutMs: 20_000 });
    setBusy(false);
    if (!r.ok) {
      setMsg({ kind: "error", text: r.status === 409 || r.status === 400 ? (r.error ?? API_KEY_TEXT.generateFailed) : API_KEY_TEXT.generateFailed });
      return;
    }
    setKeys((k) => [r.data.key, ...k]);
    setFresh(r.data.apiKey);
    setCopied(false);
    setName("");
    setMsg({ kind: "success", text: API_KEY_TEXT.generated });
  }

  async function revoke(keyName: string) {
    setRevoking(keyName);
    setMsg(null);
    const r = await api(`/api/auth/apikeys/${encodeURIComponent(keyName)}`, { method: "DELETE", timeoutMs: 20_000 });
    setRevoking(null);
    if (!r.ok) {
      setMsg({ kind: "error", text: API_KEY_TEXT.revokeFailed });
      return;
    }
    setKeys((k) => k.filter((x) => x.name !== keyName));
    setMsg({ kind: "success", text: API_KEY_TEXT.revoked(keyName) });
  }

  async function copy() {
    if (!fresh) return;
    try {
      await navigator.clipboard.writeText(fresh);
      setCopied(true);
      setMsg({ kind: "success", text: API_KEY_TEXT.copied });
      setTimeout(() => setCopied(false), 1000);
    } catch {
      setMsg({ kind: "error", text: "Copying failed: select the key and copy it by hand." });
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
        {msg && <Alert kind={msg.kind}>{msg.text}</Alert>}
        {fresh && (
          <div className="rounded-xl border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950/40" data-testid="new-key">
            <div className="flex items-start justify-between gap-4">
              <p className="flex items-center gap-2 font-semibold text-amber-900 dark:text-amber-200">
                <TriangleAlert className="h-4 w-4" aria-hidden /> {API_KEY_TEXT.onceWarning}
              </p>
              <button type="button" onClick={() => setFresh(null)} aria-label="Dismiss" className="rounded p-1 text-amber-900 hover:bg-amber-100 dark:text-amber-200 dark:hover:bg-amber-900/50">
                <X className="h-4 w-4" aria-hidden />
              </button>
            </div>
            <div className="mt-3 flex items-center gap-2">
              <code className="block flex-1 overflow-x-auto rounded bg-white px-3 py-2 font-mono text-sm dark:bg-slate-900" data-testid="new-key-value">
                {fresh}
              </code>
              <Button onClick={() => void copy()} aria-label="Copy API key">
                {copied ? <Check className="h-4 w-4" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />} Copy
              </Button>
            </div>
          </div>
        )}
      </div>

      <form onSubmit={create} className="mt-6 flex flex-col gap-3 sm:flex-row sm:items-end" noValidate>
        <div className="flex-1">
          <label htmlFor="key-name" className="block text-sm font-medium">
            New key name
          </label>
          <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. laptop, CI, Claude Desktop" maxLength={100} className={`mt-1 ${inputClass}`} disabled={busy} />
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <KeyRound className="h-4 w-4" aria-hidden />}
          {busy ? "Generating..." : "Generate API Key"}
        </Button>
      </form>

      <h2 className="mt-10 text-lg font-semibold">Your keys</h2>
      {keys.length === 0 ? (
        <p className="mt-3 rounded-xl border border-dashed border-slate-300 p-8 text-center text-slate-600 dark:border-slate-700 dark:text-slate-400">{API_KEY_TEXT.empty}</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-200 rounded-xl border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
          {keys.map((k) => (
            <li key={k.name} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
              <div>
                <p className="font-medium">{k.name}</p>
                <p className="text-sm text-slate-500 dark:text-slate-400">
                  <code>{k.prefix}…</code> · Created {shortDate(k.createdAt)} · {k.lastUsedAt ? `Last used ${shortDate(k.lastUsedAt)}` : "Never used"}
                </p>
              </div>
              <ConfirmDialog
                open={confirming === k.name}
                onOpenChange={(open) => setConfirming(open ? k.name : null)}
                trigger={
                  <Button variant="dangerOutline" size="sm" disabled={revoking === k.name} aria-label={`Revoke ${k.name}`}>
                    {revoking === k.name ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Trash2 className="h-4 w-4" aria-hidden />} Revoke
                  </Button>
                }
                title={`Revoke the API key "${k.name}"?`}
                description="Anything using it stops working at once."
                confirmLabel="Revoke"
                cancelLabel="Cancel"
                onConfirm={() => {
                  setConfirming(null);
                  void revoke(k.name);
                }}
              />
            </li>
          ))}
        </ul>
      )}

      <ConnectedApps />
    </section>
  );
}
