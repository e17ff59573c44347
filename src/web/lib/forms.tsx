import type { FieldMetadata, FormMetadata } from "@conform-to/react";
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import { useActionData, useFetcher, useNavigate } from "react-router";
import { Alert } from "../components/ui";

// Every form of the site posts to its route's action, so it works before and without JavaScript
// (docs/product.md#forms). With scripts, a fetcher sends the same post and the page shows the
// action's answer in place: the same busy labels, messages and delays as before, and one place
// (the action, with the shared zod schema) where a form's rules live.

const noSubscribe = () => () => {};

/** false while the server renders and the page hydrates; true once scripts run the page. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscribe,
    () => true,
    () => false,
  );
}

/** The field a page's scripts add to a post: the action then answers with data instead of a redirect. */
export const ENHANCED_FIELD = "_enhanced";

/** Put inside every form: tells the action that scripts sent it (so a redirect can wait, as the spec's delays want). */
export function Enhanced() {
  return useHydrated() ? <input type="hidden" name={ENHANCED_FIELD} value="1" /> : null;
}

/**
 * A form's fetcher and its last answer: the fetcher's when scripts sent it, else the answer the
 * server rendered the page with (a post without JavaScript). `busy` while it is under way, and
 * while a successful answer's `redirectTo` waits its `delayMs` before the browser goes there.
 */
export function useActionForm<T extends object>(key: string, opts: { delayMs?: number; reload?: boolean } = {}) {
  const fetcher = useFetcher<T>({ key });
  const actionData = useActionData() as (T & { form?: string }) | undefined;
  const fromPage = actionData && (actionData.form === undefined || actionData.form === key) ? actionData : undefined;
  const answer = fetcher.data ?? fromPage;
  const navigate = useNavigate();
  const going = useRef<string | null>(null);
  const to = (fetcher.data as { redirectTo?: string } | undefined)?.redirectTo;
  useEffect(() => {
    if (!to || going.current === to) return;
    going.current = to;
    const timer = setTimeout(() => {
      // A sign-in changes what every part of the page shows: load the next page afresh.
      if (opts.reload) window.location.assign(to);
      else void navigate(to);
    }, opts.delayMs ?? 0);
    return () => clearTimeout(timer);
  }, [to, navigate, opts.delayMs, opts.reload]);
  const busy = fetcher.state !== "idle" || Boolean(to);
  return { fetcher, answer, busy };
}

/** The error shown under a field, named by the field's aria-describedby while the field is invalid. */
export function FieldError({ meta }: { meta: Pick<FieldMetadata<unknown>, "errorId" | "errors"> }) {
  if (!meta.errors?.length) return null;
  return (
    <p id={meta.errorId} className="mt-1 text-sm text-red-700 dark:text-red-300">
      {meta.errors[0]}
    </p>
  );
}

/** A labelled field with its hint (`<id>-hint`) and its error under it. */
export function FormField({
  meta,
  label,
  hint,
  children,
}: {
  meta: Pick<FieldMetadata<unknown>, "id" | "errorId" | "errors">;
  label: ReactNode;
  hint?: string;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={meta.id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {children}
      {hint && (
        <p id={`${meta.id}-hint`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      )}
      <FieldError meta={meta} />
    </div>
  );
}

/** The form's own error (not a field's) at its top, named by the form's aria-describedby. */
export function FormError({
  form,
  text,
}: {
  form: Pick<FormMetadata<Record<string, unknown>>, "errorId">;
  text: string | null | undefined;
}) {
  if (!text) return null;
  return (
    <div id={form.errorId}>
      <Alert kind="error">{text}</Alert>
    </div>
  );
}

/**
 * What a card shows: what the page loaded, replaced by each newer answer of its forms that carries
 * a fresh copy (`pick`), and by a newer page load (after a post without JavaScript).
 */
export function useLatest<T, A extends object>(initial: T, answers: readonly (A | undefined)[], pick: (a: A) => T | undefined): T {
  const [s, setS] = useState<{ value: T; base: T; seen: readonly (A | undefined)[] }>({ value: initial, base: initial, seen: answers });
  if (s.base !== initial) {
    setS({ value: initial, base: initial, seen: answers });
    return initial;
  }
  const fresh = answers.find((a, i) => a !== undefined && a !== s.seen[i] && pick(a) !== undefined);
  if (fresh) {
    const value = pick(fresh)!;
    setS({ value, base: initial, seen: answers });
    return value;
  }
  return s.value;
}
