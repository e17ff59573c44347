import type { FetcherWithComponents } from "react-router";
import { Link } from "react-router";
import type { ReactNode } from "react";
import { dateTime, longDate } from "../../lib/dates";
import { Enhanced } from "../../lib/forms";
import { ConfirmButton } from "../ConfirmButton";
import { CopyButton } from "../CopyButton";
import { ExternalLink, Loader2, Trash2 } from "../icons";
import { Alert, linkClass } from "../ui";
import { ORG_TEXT } from "../../../shared/orgs";

// A row's parts on the list pages of the servers an owner made here: connections.tsx and
// toolsets.tsx. Each row keeps its own name, status and details; these are the same on both.

interface RemoveTexts {
  /** the button's label, e.g. Disconnect */
  label: string;
  title: string;
  description: string;
  cancel: string;
}

/** An organisation's row says whose it is. */
export function OwnedBy({ org }: { org: { name: string } | null | undefined }) {
  if (!org) return null;
  return (
    <p className="mt-1 text-xs font-medium text-indigo-800 dark:text-indigo-300" data-testid="row-org">
      {ORG_TEXT.ownedBy(org.name)}
    </p>
  );
}

/**
 * Open the row's page, and remove it (asked first; a form: it works without JavaScript). `manage`
 * false (a member of the organisation that owns it, without the right to change it): Open only.
 */
export function RowActions<T>({
  path,
  fetcher,
  field,
  id,
  name,
  texts,
  manage = true,
}: {
  manage?: boolean;
  path: string;
  fetcher: FetcherWithComponents<T>;
  /** the hidden field that names the row's id to the action */
  field: string;
  id: string;
  name: string;
  texts: RemoveTexts;
}) {
  const removing = fetcher.state !== "idle";
  return (
    <div className="flex flex-wrap gap-2">
      <Link to={path} className={`${linkClass} inline-flex items-center gap-1 text-sm`}>
        <ExternalLink className="h-4 w-4" aria-hidden /> Open
      </Link>
      {manage && (
        <fetcher.Form method="post">
          <Enhanced />
          <input type="hidden" name="intent" value="remove" />
          <input type="hidden" name={field} value={id} />
          <ConfirmButton
            label={
              <>
                <Trash2 className="h-4 w-4" aria-hidden /> {texts.label}
                <span className="sr-only"> {name}</span>
              </>
            }
            busy={removing}
            busyLabel={
              <>
                <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> {texts.label}
              </>
            }
            title={texts.title}
            description={texts.description}
            confirmLabel={texts.label}
            cancelLabel={texts.cancel}
          />
        </fetcher.Form>
      )}
    </div>
  );
}

/** The row's Switchboard URL, to copy. */
export function RowUrl({ url }: { url: string }) {
  return (
    <div className="mt-3 flex items-center gap-2">
      <code className="min-w-0 flex-1 truncate rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-950" title={url}>
        {url}
      </code>
      <CopyButton text={url} />
    </div>
  );
}

/** A refused removal, below the row. */
export function RowError({ error }: { error?: string }) {
  if (!error) return null;
  return (
    <div className="mt-2">
      <Alert kind="error">{error}</Alert>
    </div>
  );
}

/** The row's status and when it was made (more of its details may follow, as children). */
export function RowStatus({
  running,
  testId,
  status,
  createdAt,
  children,
}: {
  running: boolean;
  /** the status's test id, e.g. connection-status */
  testId: string;
  status: string;
  createdAt: string;
  children?: ReactNode;
}) {
  return (
    <p className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
      <span className="flex items-center gap-1.5 font-medium">
        <span className={`inline-block h-2.5 w-2.5 rounded-full ${running ? "bg-green-500" : "bg-yellow-400"}`} aria-hidden />
        <span data-testid={testId}>{status}</span>
      </span>
      <span className="text-slate-600 dark:text-slate-400">
        · Created{" "}
        <time dateTime={createdAt} title={dateTime(createdAt)}>
          {longDate(createdAt)}
        </time>
        {children}
      </span>
    </p>
  );
}

/** The list below the page's form: its rows, or that there are none, or that it could not be read. */
export function RowList({
  loadFailed,
  texts,
  testId,
  children,
}: {
  loadFailed: boolean;
  texts: { loadFailed: string; none: string };
  /** the list's test id, e.g. connections */
  testId: string;
  /** the rows; none: the list is empty */
  children: ReactNode[];
}) {
  return (
    <>
      {loadFailed && (
        <div className="mt-4">
          <Alert kind="error">{texts.loadFailed}</Alert>
        </div>
      )}
      {children.length === 0 && !loadFailed ? (
        <p className="mt-6 rounded-xl border border-dashed border-slate-300 p-8 text-center text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {texts.none}
        </p>
      ) : (
        <ul className="mt-6 space-y-3" data-testid={testId}>
          {children}
        </ul>
      )}
    </>
  );
}
