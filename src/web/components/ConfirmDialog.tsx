import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { Loader2 } from "~/web/components/icons";
import { useCallback, useEffect, useRef, type ReactNode } from "react";
import { useHydrated } from "../lib/forms";
import { Button } from "./ui";

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The control that opens the dialog (a Button); focus returns to it when the dialog closes. */
  trigger?: ReactNode;
  title: ReactNode;
  description: ReactNode;
  confirmLabel: ReactNode;
  cancelLabel: ReactNode;
  /** Runs on Confirm; the dialog stays open until the caller closes it (so it can show `busy`). */
  onConfirm: () => void;
  /** While true the buttons are disabled, Confirm shows a spinner and Escape does nothing. */
  busy?: boolean;
  confirmDisabled?: boolean;
  tone?: "danger" | "primary";
  /** Shown between the description and the buttons (an input to type, an error). */
  children?: ReactNode;
  /**
   * Without JavaScript (or before it has loaded) the dialog cannot open: inside a form, the
   * confirmation then unfolds in place (a <details> whose summary reads `label`) and `submit`,
   * a submit button of that form, confirms.
   */
  noScript?: {
    label: ReactNode;
    className: string;
    submit: ReactNode;
    /** unfolded already (its answer is an error to show) */ open?: boolean;
  };
}

/**
 * A confirmation of a consequential action, as a modal alert dialog: it is named by its title and
 * described by its text, focus starts on the cancel button and stays inside, Escape cancels, and
 * focus goes back to the trigger afterwards.
 */
export function ConfirmDialog(p: Props) {
  const busy = p.busy ?? false;
  const hydrated = useHydrated();
  // Unfolded by a click before the scripts ran: the dialog takes over, open.
  const details = useRef<HTMLDetailsElement | null>(null);
  const keep = useCallback((el: HTMLDetailsElement | null) => {
    if (el) details.current = el;
  }, []);
  const { onOpenChange } = p;
  useEffect(() => {
    if (!hydrated) return;
    if (details.current?.open) onOpenChange(true);
    details.current = null;
  }, [hydrated, onOpenChange]);
  if (!hydrated && p.noScript) {
    return (
      <details className="group" open={p.noScript.open} ref={keep}>
        <summary className={`${p.noScript.className} cursor-pointer list-none [&::-webkit-details-marker]:hidden`}>
          {p.noScript.label}
        </summary>
        <div
          role="group"
          aria-label={typeof p.title === "string" ? p.title : undefined}
          className="mt-3 space-y-3 rounded-xl border border-slate-200 p-4 text-sm dark:border-slate-800"
        >
          <p className="font-semibold">{p.title}</p>
          <div className="text-slate-600 dark:text-slate-300">{p.description}</div>
          {p.children}
          <div className="flex flex-wrap justify-end gap-3">{p.noScript.submit}</div>
        </div>
      </details>
    );
  }
  return (
    <AlertDialog.Root open={p.open} onOpenChange={(open) => !busy && p.onOpenChange(open)}>
      {p.trigger && <AlertDialog.Trigger asChild>{p.trigger}</AlertDialog.Trigger>}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-50 bg-slate-950/60" />
        <AlertDialog.Content
          onEscapeKeyDown={(e) => busy && e.preventDefault()}
          className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-xl border border-slate-200 bg-white p-6 text-slate-900 shadow-xl focus:outline-none dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100"
        >
          <AlertDialog.Title className="text-lg font-semibold">{p.title}</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-600 dark:text-slate-300">{p.description}</AlertDialog.Description>
          {p.children && <div className="mt-4 space-y-3">{p.children}</div>}
          <div className="mt-6 flex flex-wrap justify-end gap-3">
            <AlertDialog.Cancel asChild>
              <Button variant="secondary" size="sm" disabled={busy}>
                {p.cancelLabel}
              </Button>
            </AlertDialog.Cancel>
            <Button
              variant={p.tone === "primary" ? "primary" : "danger"}
              size="sm"
              disabled={busy || p.confirmDisabled}
              onClick={p.onConfirm}
            >
              {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
              {p.confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
