import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Loader2, TriangleAlert } from "~/web/components/icons";
import { useState } from "react";
import { data, Link, redirect } from "react-router";
import { listMyServers } from "../../server/features/publishers/service";
import { PROFILE_TEXT } from "../../shared/auth";
import { deleteAccountRequest, profileForm, profileUpdate } from "../../shared/profile";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Alert, Button, buttonClass, inputClass } from "../components/ui";
import { cookieHeaders, field, finish } from "../lib/actions.server";
import { Enhanced, FormError, FormField, useActionForm } from "../lib/forms";
import type { Route } from "./+types/profile";
import { ORG_TEXT } from "../../shared/orgs";

export function meta() {
  return [{ title: "Your Profile" }, { name: "robots", content: "noindex" }];
}

export async function loader({ context }: Route.LoaderArgs) {
  const v = context.viewer;
  if (!v) throw redirect("/login?redirect=/profile");
  const servers = (await listMyServers(context.db, v)).map((s) => ({
    qualifiedName: s.qualifiedName,
    displayName: s.displayName,
    version: s.version,
    manage: s.manage,
    org: s.owner.org?.name ?? null,
  }));
  return { id: v.id, username: v.username, email: v.email, fullName: v.fullName, servers };
}

type Answer = { form?: string; result?: SubmissionResult<string[]>; message?: string; error?: string; redirectTo?: string };

const PASSWORDS = ["currentPassword", "password", "confirm"];
/** The API's answers that belong to one field of the form. */
const FIELD_OF: Record<string, string> = {
  [PROFILE_TEXT.usernameTaken]: "username",
  [PROFILE_TEXT.usernameFormat]: "username",
  [PROFILE_TEXT.emailTaken]: "email",
  [PROFILE_TEXT.wrongCurrent]: "currentPassword",
};

export async function action({ request, context }: Route.ActionArgs) {
  const v = context.viewer;
  if (!v) throw redirect("/login?redirect=/profile");
  const form = await request.formData();
  const path = `/api/users/${encodeURIComponent(v.id)}`;
  if (field(form, "intent") === "delete") {
    const input = deleteAccountRequest.safeParse({ confirmEmail: field(form, "confirmEmail") });
    if (!input.success) return { form: "delete", error: PROFILE_TEXT.deleteConfirmMismatch } satisfies Answer;
    const r = await context.api("DELETE", path, input.data);
    if (!r.ok) return { form: "delete", error: r.error || "Failed to delete your account. Please try again later." } satisfies Answer;
    return finish(form, "/", cookieHeaders(r));
  }

  const submission = parseWithZod(form, { schema: profileForm });
  if (submission.status !== "success") return { form: "profile", result: submission.reply({ hideFields: PASSWORDS }) } satisfies Answer;
  const f = submission.value;
  // Only the changed fields are sent (docs/product.md#profile), checked as the API checks them.
  const body: Record<string, string> = {};
  if (f.username !== v.username) body.username = f.username;
  if (f.email.toLowerCase() !== v.email.toLowerCase()) body.email = f.email;
  if (f.password) {
    body.currentPassword = f.currentPassword ?? "";
    body.password = f.password;
  }
  if (Object.keys(body).length === 0)
    return { form: "profile", result: submission.reply({ formErrors: [PROFILE_TEXT.noChanges], hideFields: PASSWORDS }) } satisfies Answer;
  const checked = profileUpdate.safeParse(body);
  if (!checked.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of checked.error.issues) fieldErrors[String(issue.path[0] ?? "")] ??= [issue.message];
    const { "": formError, ...rest } = fieldErrors;
    return {
      form: "profile",
      result: submission.reply({ fieldErrors: rest, formErrors: formError, hideFields: PASSWORDS }),
    } satisfies Answer;
  }
  const r = await context.api<{ message: string }>("PUT", path, checked.data);
  if (!r.ok) {
    const text = r.error || PROFILE_TEXT.failed;
    const at = FIELD_OF[text];
    const reply = at
      ? submission.reply({ fieldErrors: { [at]: [text] }, hideFields: PASSWORDS })
      : submission.reply({ formErrors: [text], hideFields: PASSWORDS });
    return data({ form: "profile", result: reply } satisfies Answer, { headers: cookieHeaders(r) });
  }
  // Saved: the form starts again from what is stored now (the password fields empty).
  await context.refreshViewer(r.cookies);
  return data({ form: "profile", result: submission.reply({ resetForm: true }), message: r.data.message } satisfies Answer, {
    headers: cookieHeaders(r),
  });
}

export default function Profile({ loaderData }: Route.ComponentProps) {
  // Held here, above the keyed form, so the answer outlives the new form a saved name makes.
  const action = useActionForm<Answer>("profile");
  return (
    <section className="mx-auto max-w-2xl px-4 py-12">
      <h1 className="text-3xl font-bold tracking-tight">Your Profile</h1>
      {/* Saved names are the form's new starting point: a new form for them. */}
      <ProfileForm
        key={`${loaderData.username}|${loaderData.email}`}
        username={loaderData.username}
        email={loaderData.email}
        action={action}
      />
      <YourServers servers={loaderData.servers} />
      <DangerZone email={loaderData.email} />
    </section>
  );
}

function ProfileForm({ action, ...loaderData }: { username: string; email: string; action: ReturnType<typeof useActionForm<Answer>> }) {
  const { fetcher, answer, busy } = action;
  const [form, fields] = useForm({
    id: "profile",
    lastResult: answer?.result,
    defaultValue: { username: loaderData.username, email: loaderData.email },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: profileForm }),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const saved = answer?.message ?? null;

  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="mt-8 space-y-8">
      <Enhanced />
      <FormError form={form} text={form.errors?.[0]} />
      {saved && <Alert kind="success">{saved}</Alert>}
      <fieldset className="space-y-4 rounded-xl border border-slate-200 p-6 dark:border-slate-800" disabled={busy}>
        <legend className="px-1 text-lg font-semibold">Account</legend>
        <FormField meta={fields.username} label="Username">
          <input {...getInputProps(fields.username, { type: "text" })} autoComplete="username" className={inputClass} />
        </FormField>
        <FormField meta={fields.email} label="Email Address">
          <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" className={inputClass} />
        </FormField>
      </fieldset>
      <fieldset className="space-y-4 rounded-xl border border-slate-200 p-6 dark:border-slate-800" disabled={busy}>
        <legend className="px-1 text-lg font-semibold">Change Password</legend>
        <FormField meta={fields.currentPassword} label="Current Password">
          <input {...getInputProps(fields.currentPassword, { type: "password" })} autoComplete="current-password" className={inputClass} />
        </FormField>
        <FormField meta={fields.password} label="New Password">
          <input {...getInputProps(fields.password, { type: "password" })} autoComplete="new-password" className={inputClass} />
        </FormField>
        <FormField meta={fields.confirm} label="Confirm New Password">
          <input {...getInputProps(fields.confirm, { type: "password" })} autoComplete="new-password" className={inputClass} />
        </FormField>
      </fieldset>
      <Button type="submit" disabled={busy}>
        {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {busy ? PROFILE_TEXT.saving : PROFILE_TEXT.save}
      </Button>
    </fetcher.Form>
  );
}

function DangerZone({ email }: { email: string }) {
  const { fetcher, answer, busy } = useActionForm<Answer>("delete");
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const matches = typed.trim().toLowerCase() === email.toLowerCase();
  const error = answer?.error ?? null;

  return (
    <section className="mt-12 rounded-xl border border-red-300 p-6 dark:border-red-900" aria-labelledby="danger-zone">
      <h2 id="danger-zone" className="flex items-center gap-2 text-lg font-semibold text-red-700 dark:text-red-400">
        <TriangleAlert className="h-5 w-5" aria-hidden /> Danger Zone
      </h2>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        Deleting your account removes your profile, API keys, registered servers and deployments. Approved directory entries you submitted
        stay, without your name.
      </p>
      <fetcher.Form method="post" className="mt-4">
        <Enhanced />
        <ConfirmDialog
          open={open}
          onOpenChange={(next) => {
            setOpen(next);
            if (!next) setTyped("");
          }}
          trigger={<Button variant="dangerOutline">Delete Account</Button>}
          title="Delete Account"
          description={
            <label htmlFor="confirm-delete">
              Type <strong>{email}</strong> to confirm.
            </label>
          }
          confirmLabel="Permanently delete my account"
          cancelLabel="Cancel"
          onConfirm={() => void fetcher.submit({ intent: "delete", confirmEmail: typed, _enhanced: "1" }, { method: "post" })}
          busy={busy}
          confirmDisabled={!matches}
          noScript={{
            label: "Delete Account",
            className: buttonClass("dangerOutline"),
            open: Boolean(error),
            submit: (
              <Button type="submit" name="intent" value="delete" variant="danger" size="sm">
                Permanently delete my account
              </Button>
            ),
          }}
        >
          {error && <Alert kind="error">{error}</Alert>}
          <input
            id="confirm-delete"
            name="confirmEmail"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            className={inputClass}
            autoComplete="off"
            disabled={busy}
          />
        </ConfirmDialog>
      </fetcher.Form>
    </section>
  );
}

/** The servers this user registered (GET /api/servers), with links to their pages and forms. */
function YourServers({
  servers,
}: {
  servers: { qualifiedName: string; displayName: string; version: string; manage: boolean; org: string | null }[];
}) {
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
                {s.displayName} <span className="font-mono text-xs text-slate-600 dark:text-slate-400">{s.qualifiedName}</span>
              </Link>
              {s.org && <span className="text-xs text-slate-600 dark:text-slate-400">{ORG_TEXT.ownedBy(s.org)}</span>}
              {s.manage && (
                <Link
                  to={`/servers/server/${s.qualifiedName}/edit`}
                  className="text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400"
                >
                  Edit
                </Link>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
