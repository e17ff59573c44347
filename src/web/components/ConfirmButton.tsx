import { useRef, useState, type ReactNode } from "react";
import { useHydrated } from "../lib/forms";
import { ConfirmDialog } from "./ConfirmDialog";
import { Button, buttonClass, type ButtonVariant } from "./ui";

// A destructive action's button inside its form (docs/product.md#confirmations): it asks first,
// saying what stops working. With scripts the question is a dialog, and Confirm submits the form
// through its own submit button (so the form's onSubmit, its fetcher and its busy labels work as
// before); without them it unfolds in place and its Confirm is the form's submit button.

interface Props {
  /** what the button shows: an icon and its text (with what it acts on in an sr-only span, when the text alone does not say) */
  label: ReactNode;
  /** the confirmed action is under way: the button shows `busyLabel` and is disabled */
  busy?: boolean;
  busyLabel?: ReactNode;
  disabled?: boolean;
  variant?: ButtonVariant;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  /** what the confirming submit sends as its own name and value (an intent), if anything */
  name?: string;
  value?: string;
  /** fields shown in the question (give them `form={formId}`: the dialog is outside the form) */
  children?: ReactNode;
  /** unfolded already without scripts (a refused answer to show) */
  open?: boolean;
}

export function ConfirmButton(p: Props) {
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);
  const submit = useRef<HTMLButtonElement>(null);
  const variant = p.variant ?? "dangerOutline";
  const shown = p.busy && p.busyLabel ? p.busyLabel : p.label;
  return (
    <>
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        trigger={
          <Button variant={variant} size="sm" disabled={p.busy || p.disabled}>
            {shown}
          </Button>
        }
        title={p.title}
        description={p.description}
        confirmLabel={p.confirmLabel}
        cancelLabel={p.cancelLabel}
        onConfirm={() => {
          setOpen(false);
          const button = submit.current;
          button?.form?.requestSubmit(button);
        }}
        noScript={{
          label: <span className="inline-flex items-center gap-1.5">{shown}</span>,
          className: buttonClass(variant, "sm"),
          open: p.open,
          submit: (
            <Button type="submit" name={p.name} value={p.value} variant="danger" size="sm" disabled={p.busy}>
              {p.confirmLabel}
            </Button>
          ),
        }}
      >
        {p.children}
      </ConfirmDialog>
      {hydrated && <button ref={submit} type="submit" name={p.name} value={p.value} hidden tabIndex={-1} aria-hidden />}
    </>
  );
}
