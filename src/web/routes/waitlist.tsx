import { Loader2, Sparkles } from "~/web/components/icons";
import { useState } from "react";
import { Form, useActionData } from "react-router";
import { joinWaitlist } from "../../server/features/waitlist/service";
import { WAITLIST_TEXT, waitlistRequest } from "../../shared/waitlist";
import { Button } from "../components/ui";
import type { Route } from "./+types/waitlist";

export function meta({ matches }: Route.MetaArgs) {
  const site = (matches[0]?.data as { site?: { name: string } } | undefined)?.site?.name ?? "Switchboard";
  return [{ title: `Join the waitlist - ${site}` }, { name: "description", content: WAITLIST_TEXT.headline }];
}

type Result = { ok: boolean; message: string };

// Without JavaScript the form posts here; with it, the page calls the API directly.
export async function action({ request, context }: Route.ActionArgs): Promise<Result> {
  const form = await request.formData();
  const parsed = waitlistRequest.safeParse({ email: form.get("email") ?? "" });
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? WAITLIST_TEXT.fallbackError };
  const r = await joinWaitlist(context.db, parsed.data.email);
  return { ok: true, message: r.message };
}

export default function Waitlist() {
  const actionData = useActionData<typeof action>();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const shown = result ?? actionData ?? null;

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const email = String(new FormData(form).get("email") ?? "");
    setBusy(true);
    setResult(null);
    try {
      const res = await fetch("/api/waitlist", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email }),
      });
      if (res.ok) {
        setResult({ ok: true, message: WAITLIST_TEXT.success });
        form.reset();
      } else {
        const body = (await res.json().catch(() => null)) as { error?: string } | null;
        setResult({ ok: false, message: body?.error || WAITLIST_TEXT.fallbackError });
      }
    } catch {
      setResult({ ok: false, message: WAITLIST_TEXT.networkError });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="relative overflow-hidden">
      <div className="mx-auto flex max-w-3xl flex-col items-center px-4 py-24 text-center sm:py-32">
        <span className="inline-flex items-center gap-2 rounded-full border border-indigo-500/30 bg-indigo-500/10 px-3 py-1 text-sm font-medium text-indigo-600 dark:text-indigo-300">
          <Sparkles className="h-4 w-4" aria-hidden /> Coming soon
        </span>
        <h1 className="mt-6 text-4xl font-extrabold tracking-tight sm:text-5xl">{WAITLIST_TEXT.headline}</h1>
        <p className="mt-6 text-lg text-slate-600 dark:text-slate-400">
          Orchestrate work, data and AI in one place, with the MCP servers you already use. Leave your e-mail and we'll let you know when it
          opens.
        </p>
        <Form
          method="post"
          onSubmit={onSubmit}
          className="mt-10 flex w-full max-w-md flex-col gap-3 sm:flex-row"
          aria-describedby="waitlist-status"
        >
          <label htmlFor="waitlist-email" className="sr-only">
            Email address
          </label>
          <input
            id="waitlist-email"
            name="email"
            type="email"
            required
            autoComplete="email"
            placeholder="you@example.com"
            disabled={busy}
            className="min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-4 py-2.5 text-slate-900 placeholder:text-slate-400 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500 disabled:opacity-60 dark:border-slate-700 dark:bg-slate-900 dark:text-white"
          />
          <Button type="submit" size="lg" disabled={busy}>
            {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {busy ? WAITLIST_TEXT.busy : WAITLIST_TEXT.button}
          </Button>
        </Form>
        <p id="waitlist-status" role="status" aria-live="polite" className="mt-4 min-h-6 text-sm">
          {shown && (
            <span className={shown.ok ? "text-emerald-600 dark:text-emerald-400" : "text-red-600 dark:text-red-400"}>{shown.message}</span>
          )}
        </p>
      </div>
    </section>
  );
}
