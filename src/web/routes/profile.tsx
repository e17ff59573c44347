import { Loader2, TriangleAlert } from "lucide-react";
import { useState } from "react";
import { Link, redirect, useRevalidator } from "react-router";
import { listMyServers } from "../../server/features/publishers/service";
import { PROFILE_TEXT } from "../../shared/auth";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Alert, Button, Field, inputClass } from "../components/ui";
import { api } from "../lib/api";
import type { Route } from "./+types/profile";

export function meta() {
  return [{ title: "Your Profile" }, { name: "robots", content: "noindex" }];
}

export async function loader({ context }: Route.LoaderArgs) {
  const v = context.viewer;
  if (!v) throw redirect("/login?redirect=/profile");
  const servers = (await listMyServers(context.db, v)).map((s) => ({ qualifiedName: s.qualifiedName, displayName: s.displayName, version: s.version }));
  return { id: v.id, username: v.username, email: v.email, fullName: v.fullName, servers };
}


export default function Profile({ loaderData }: Route.ComponentProps) {
  const [saved, setSaved] = useState({ username: loaderData.username, email: loaderData.email });
  const [form, setForm] = useState({ username: loaderData.username, email: loaderData.email, currentPassword: "", password: "", confirm: "" });
  const [busy, setBusy] = useState(false);
  const revalidator = useRevalidator();
  const [msg, setMsg] = useState<{ kind: "error" | "success"; text: string } | null>(null);
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [k]: e.target.value }));

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    setMsg(null);
    const username = form.username.trim();
    const email = form.email.trim();
    if (!username) return setMsg({ kind: "error", text: PROFILE_TEXT.usernameRequired });
    if (!email) return setMsg({ kind: "error", text: PROFILE_TEXT.emailRequired });
    // Only the changed fields are sent.
    const body: Record<string, string> = {};
    if (username !== saved.username) body.username = username;
    if (email.toLowerCase() !== saved.email.toLowerCase()) body.email = email;
    if (form.password || form.confirm) {
      if (!form.currentPassword) return setMsg({ kind: "error", text: PROFILE_TEXT.currentRequired });
      if (form.password !== form.confirm) return setMsg({ kind: "error", text: PROFILE_TEXT.mismatch });
      body.currentPassword = form.currentPassword;
      body.password = form.password;
    }
    if (Object.keys(body).length === 0) return setMsg({ kind: "error", text: PROFILE_TEXT.noChanges });
    setBusy(true);
    const r = await api<{ profile: { username: string; email: string }; message: string }>(`/api/users/${encodeURIComponent(loaderData.id)}`, {
      method: "PUT",
      body,
      timeoutMs: 20_000,
    });
    setBusy(false);
    if (r.ok) {
      setSaved({ username: r.data.profile.username, email: r.data.profile.email });
      setForm({ username: r.data.profile.username, email: r.data.profile.email, currentPassword: "", password: "", confirm: "" });
      setMsg({ kind: "success", text: r.data.message });
      // The header shows the username: refresh the page data.
      void revalidator.revalidate();
    } else {
      setMsg({ kind: "error", text: r.error || PROFILE_TEXT.failed });
    }
  }

  return (
    <section className="mx-auto max-w-2xl px-4 py-12">
      <h1 className="text-3xl font-bold tracking-tight">Your Profile</h1>
      <form onSubmit={onSubmit} noValidate className="mt-8 space-y-8">
        {msg && <Alert kind={msg.kind}>{msg.text}</Alert>}
        <fieldset className="space-y-4 rounded-xl border border-slate-200 p-6 dark:border-slate-800" disabled={busy}>
          <legend className="px-1 text-lg font-semibold">Account</legend>
          <Field id="username" label="Username">
            <input id="username" name="username" required value={form.username} onChange={set("username")} autoComplete="username" className={inputClass} />
          </Field>
          <Field id="email" label="Email Address">
            <input id="email" name="email" type="email" required value={form.email} onChange={set("email")} autoComplete="email" className={inputClass} />
          </Field>
        </fieldset>
        <fieldset className="space-y-4 rounded-xl border border-slate-200 p-6 dark:border-slate-800" disabled={busy}>
          <legend className="px-1 text-lg font-semibold">Change Password</legend>
          <Field id="currentPassword" label="Current Password">
            <input id="currentPassword" type="password" value={form.currentPassword} onChange={set("currentPassword")} autoComplete="current-password" className={inputClass} />
          </Field>
          <Field id="password" label="New Password">
            <input id="password" type="password" value={form.password} onChange={set("password")} autoComplete="new-password" className={inputClass} />
          </Field>
          <Field id="confirm" label="Confirm New Password">
            <input id="confirm" type="password" value={form.confirm} onChange={set("confirm")} autoComplete="new-password" className={inputClass} />
          </Field>
        </fieldset>
        <Button type="submit" disabled={busy}>
          {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {busy ? PROFILE_TEXT.saving : PROFILE_TEXT.save}
        </Button>
      </form>
      <YourServers servers={loaderData.servers} />
      <DangerZone id={loaderData.id} email={saved.email} />
    </section>
  );
}

function DangerZone({ id, email }: { id: string; email: string }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const matches = typed.trim().toLowerCase() === email.toLowerCase();

  async function remove() {
    setBusy(true);
    setError(null);
    const r = await api(`/api/users/${encodeURIComponent(id)}`, { method: "DELETE", body: { confirmEmail: typed }, timeoutMs: 20_000 });
    if (r.ok) {
      window.location.assign("/");
      return;
    }
    setBusy(false);
    setError(r.error || "Failed to delete your account. Please try again later.");
  }

  return (
    <section className="mt-12 rounded-xl border border-red-300 p-6 dark:border-red-900" aria-labelledby="danger-zone">
      <h2 id="danger-zone" className="flex items-center gap-2 text-lg font-semibold text-red-700 dark:text-red-400">
        <TriangleAlert className="h-5 w-5" aria-hidden /> Danger Zone
      </h2>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        Deleting your account removes your profile, API keys, registered servers and deployments. Approved directory entries you submitted stay, without your name.
      </p>
      <ConfirmDialog
        open={open}
        onOpenChange={(next) => {
          setOpen(next);
          if (!next) {
            setTyped("");
            setError(null);
          }
        }}
        trigger={
          <Button variant="dangerOutline" className="mt-4">
            Delete Account
          </Button>
        }
        title="Delete Account"
        description={
          <label htmlFor="confirm-delete">
            Type <strong>{email}</strong> to confirm.
          </label>
        }
        confirmLabel="Permanently delete my account"
        cancelLabel="Cancel"
        onConfirm={() => void remove()}
        busy={busy}
        confirmDisabled={!matches}
      >
        {error && <Alert kind="error">{error}</Alert>}
        <input id="confirm-delete" value={typed} onChange={(e) => setTyped(e.target.value)} className={inputClass} autoComplete="off" disabled={busy} />
      </ConfirmDialog>
    </section>
  );
}

/** The servers this user registered (GET /api/servers), with links to their pages and forms. */
function YourServers({ servers }: { servers: { qualifiedName: string; displayName: string; version: string }[] }) {
  return (
    <section className="mt-12 rounded-xl border border-slate-200 p-6 dark:border-slate-800" aria-labelledby="your-servers">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="your-servers" className="text-lg font-semibold">
          Your servers
        </h2>
        <div className="flex gap-3 text-sm">
          <Link to="/servers/apikeys" className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            API Keys
          </Link>
          <Link to="/servers/server/new" className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            Register a server
          </Link>
        </div>
      </div>
      {servers.length === 0 ? (
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">You haven&apos;t registered any servers yet.</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-200 dark:divide-slate-800">
          {servers.map((s) => (
            <li key={s.qualifiedName} className="flex items-center justify-between gap-3 py-2">
              <Link to={`/server/${s.qualifiedName}`} className="font-medium hover:underline">
                {s.displayName} <span className="font-mono text-xs text-slate-500">{s.qualifiedName}</span>
              </Link>
              <Link to={`/servers/server/${s.qualifiedName}/edit`} className="text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                Edit
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
