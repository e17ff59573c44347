import { Check, Copy, TriangleAlert, X } from "~/web/components/icons";
import { API_KEY_TEXT } from "~/shared/publishers";
import { Button } from "../ui";

// The key just generated, shown this once with Copy and Dismiss (the page says how copying went).

export function NewKeyPanel({
  apiKey,
  copied,
  onCopy,
  onDismiss,
}: {
  apiKey: string;
  /** Copy shows a check mark for a moment after it worked */
  copied: boolean;
  onCopy: () => void;
  onDismiss: () => void;
}) {
  return (
    <div className="rounded-xl border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950/40" data-testid="new-key">
      <div className="flex items-start justify-between gap-4">
        <p className="flex items-center gap-2 font-semibold text-amber-900 dark:text-amber-200">
          <TriangleAlert className="h-4 w-4" aria-hidden /> {API_KEY_TEXT.onceWarning}
        </p>
        <button
          type="button"
          onClick={onDismiss}
          aria-label="Dismiss"
          className="rounded p-1 text-amber-900 hover:bg-amber-100 dark:text-amber-200 dark:hover:bg-amber-900/50"
        >
          <X className="h-4 w-4" aria-hidden />
        </button>
      </div>
      <div className="mt-3 flex items-center gap-2">
        <code
          className="block flex-1 overflow-x-auto rounded bg-white px-3 py-2 font-mono text-sm dark:bg-slate-900"
          data-testid="new-key-value"
          tabIndex={0}
        >
          {apiKey}
        </code>
        <Button onClick={onCopy} aria-label="Copy API key">
          {copied ? <Check className="h-4 w-4" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />} Copy
        </Button>
      </div>
    </div>
  );
}
