import { Loader2, Trash2 } from "~/web/components/icons";
import { useState } from "react";
import { API_KEY_TEXT, type ApiKeyView } from "~/shared/publishers";
import { ConfirmDialog } from "../ConfirmDialog";
import { Button, buttonClass } from "../ui";
import { dateTime, longDate, timeAgo } from "../../lib/dates";
import type { useActionForm } from "../../lib/forms";

// One of the viewer's API keys in the list: its scopes, deployments, use and expiry, and Revoke
// (confirmed in a dialog; without scripts, in place).

function expiryOf(k: ApiKeyView, now: number): string {
  if (!k.expiresAt) return "Never expires";
  return new Date(k.expiresAt).getTime() <= now ? `Expired ${longDate(k.expiresAt)}` : `Expires ${longDate(k.expiresAt)}`;
}

export function KeyRow({
  k,
  now,
  revoking,
  onRevoke,
  Form,
}: {
  k: ApiKeyView;
  now: number;
  revoking: boolean;
  onRevoke: () => void;
  Form: ReturnType<typeof useActionForm>["fetcher"]["Form"];
}) {
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
      <div>
        <p className="font-medium">{k.name}</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <code>{k.prefix}…</code> · Created {longDate(k.createdAt)} ·{" "}
          {k.lastUsedAt ? (
            <>
              Last used{" "}
              <time dateTime={k.lastUsedAt} title={dateTime(k.lastUsedAt)}>
                {timeAgo(k.lastUsedAt, now)}
              </time>
            </>
          ) : (
            "Never used"
          )}{" "}
          · {expiryOf(k, now)}
        </p>
        <p className="mt-1 flex flex-wrap items-center gap-1.5 text-xs" data-testid="key-scopes">
          {k.scopes.map((scope) => (
            <span
              key={scope}
              data-testid="key-scope"
              className="rounded bg-indigo-50 px-1.5 py-0.5 font-mono text-indigo-800 dark:bg-indigo-950/60 dark:text-indigo-200"
            >
              {scope}
            </span>
          ))}
          <span className="text-slate-600 dark:text-slate-400">
            {k.resources
              ? `only ${k.resources
                  .map((r) =>
                    r
                      .replace(/^(catalog|owned):/, "")
                      .replace(/^remote:/, "connection ")
                      .replace(/^toolset:/, "toolset "),
                  )
                  .join(", ")}`
              : API_KEY_TEXT.resourcesAll.toLowerCase()}
          </span>
        </p>
        {k.legacy && <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">{API_KEY_TEXT.legacy}</p>}
      </div>
      <Form method="post">
        <input type="hidden" name="name" value={k.name} />
        <ConfirmDialog
          open={confirming}
          onOpenChange={setConfirming}
          trigger={
            <Button variant="dangerOutline" size="sm" disabled={revoking}>
              {revoking ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Trash2 className="h-4 w-4" aria-hidden />} Revoke
              <span className="sr-only"> {k.name}</span>
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
