import { ADMIN_TEXT, CHECK_TEXT, type AdminServer } from "~/shared/catalog";

// An admin card's notice that a check listed tools unlike the approved listing, named by what changed.

/** A check listed tools that are not public yet: which ones differ from the approved listing, by name. */
export function ToolsChanged({ changes, first }: { changes: NonNullable<AdminServer["tools_changed"]>; first: boolean }) {
  const rows = [
    [ADMIN_TEXT.toolsAdded, changes.added],
    [ADMIN_TEXT.toolsChangedList, changes.changed],
    [ADMIN_TEXT.toolsRemoved, changes.removed],
  ] as const;
  return (
    <div
      role="status"
      data-testid="tools-changed"
      className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
    >
      <p className="font-semibold">{first ? CHECK_TEXT.firstListing : ADMIN_TEXT.toolsChanged}</p>
      <dl className="mt-1 space-y-0.5">
        {rows.map(([label, names]) =>
          names.length ? (
            <div key={label}>
              <dt className="inline">{label}: </dt>
              <dd className="inline font-mono text-xs">{names.join(", ")}</dd>
            </div>
          ) : null,
        )}
      </dl>
    </div>
  );
}
