import { diffLines } from "diff";
import { Loader2, ShieldAlert } from "~/web/components/icons";
import { useCallback, useEffect, useState } from "react";
import { DEFINITION_TEXT, showInvisible, type DefinitionChange, type DefinitionReviewView } from "../../shared/definitions";
import type { DeploymentView } from "../../shared/deployments";
import { api } from "../lib/api";
import type { DeploymentState } from "../lib/use-deployment";
import { useStopping } from "../lib/use-stopping";
import { Alert, Button, NeedsScript } from "./ui";

// The owner's review of the deployment's definitions (docs/gateway.md#pinned-definitions): each
// tool, prompt or resource template that changed since it was approved (or is new), as a diff of
// the approved and the listed definition, with Approve and Reject; and the 'warn only' setting.

interface Props {
  deployment: DeploymentView;
  className: string;
  onStopping?: DeploymentState["onStopping"];
}

/** One decision covers at most this many definitions (the API's limit). */
const MAX_DECISION = 500;

/** The review is read again this often while the page is visible: a restart can change definitions any time. */
const REFRESH_MS = 10_000;

export function DefinitionReview({ deployment, className, onStopping }: Props) {
  const path = `/api/deployments/${deployment.id}/definitions`;
  const [view, setView] = useState<DefinitionReviewView | null>(null);
  const [loadError, setLoadError] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string } | null>(null);

  // While this page stops the deployment, it is not read (the stop removes it: a read would 404).
  const { stopping, track } = useStopping(onStopping);

  const load = useCallback(async () => {
    const r = await track(api<DefinitionReviewView>(path, { timeoutMs: 15_000 }));
    if (r.ok) {
      setView(r.data);
      setLoadError(false);
    } else setLoadError(true);
  }, [path, track]);

  // Read again whenever the deployment restarts or changes, and every little while it is in view.
  useEffect(() => {
    if (stopping) return;
    const first = setTimeout(() => void load(), 0);
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void load();
    }, REFRESH_MS);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [load, deployment.status, deployment.restarts, stopping]);

  const decide = async (decision: "approve" | "reject", items: DefinitionChange[], key: string) => {
    setBusy(key);
    setMessage(null);
    const r = await api<DefinitionReviewView>(path, {
      body: { decision, items: items.map(({ kind, name, hash }) => ({ kind, name, hash })) },
      timeoutMs: 15_000,
    });
    setBusy(null);
    if (r.ok) {
      setView(r.data);
      setMessage({ kind: "success", text: decision === "approve" ? DEFINITION_TEXT.approvedNote : DEFINITION_TEXT.rejectedNote });
    } else {
      setMessage({ kind: "error", text: r.error ?? DEFINITION_TEXT.loadFailed });
      if (r.status === 409 || r.status === 404) await load();
    }
  };

  const setWarnOnly = async (warn: boolean) => {
    setBusy("mode");
    setMessage(null);
    const r = await api<DefinitionReviewView>(`${path}/mode`, { method: "PUT", body: { warn_only: warn }, timeoutMs: 15_000 });
    setBusy(null);
    if (r.ok) setView(r.data);
    else setMessage({ kind: "error", text: r.error ?? DEFINITION_TEXT.loadFailed });
  };

  const waiting = view?.changes.filter((c) => c.status !== "rejected") ?? [];
  return (
    <section
      className={className}
      aria-labelledby="definition-review"
      data-testid="definition-review"
      aria-busy={view === null && !loadError}
    >
      <h2 id="definition-review" className="flex items-center gap-2 text-lg font-semibold">
        <ShieldAlert className="h-5 w-5 text-amber-500" aria-hidden /> {DEFINITION_TEXT.title}
        {waiting.length > 0 && (
          <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 dark:bg-amber-900/50 dark:text-amber-200">
            {waiting.length}
          </span>
        )}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
        {view?.warn_only ? DEFINITION_TEXT.introWarn : DEFINITION_TEXT.intro}
      </p>
      {view === null && !loadError && (
        <p className="mt-3 flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Loading…
        </p>
      )}
      {view === null && !loadError && <NeedsScript />}
      {loadError && view === null && (
        <div className="mt-3 flex items-center gap-3">
          <Alert kind="error">{DEFINITION_TEXT.loadFailed}</Alert>
          <Button variant="secondary" size="sm" onClick={() => void load()}>
            Retry
          </Button>
        </div>
      )}
      {view && (
        <>
          <label className="mt-3 flex w-fit cursor-pointer items-center gap-2 text-sm">
            <input
              type="checkbox"
              className="h-4 w-4 accent-indigo-600"
              checked={view.warn_only}
              disabled={busy !== null}
              onChange={(e) => void setWarnOnly(e.target.checked)}
            />
            {DEFINITION_TEXT.warnOnly}
          </label>
          {message && (
            <div className="mt-3" aria-live="polite">
              <Alert kind={message.kind}>{message.text}</Alert>
            </div>
          )}
          {view.changes.length === 0 ? (
            <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">
              {view.pinned ? DEFINITION_TEXT.none : DEFINITION_TEXT.notPinned}
            </p>
          ) : (
            <>
              {waiting.length > 1 && (
                <div className="mt-3">
                  <Button
                    variant="success"
                    size="sm"
                    disabled={busy !== null}
                    onClick={() => void decide("approve", waiting.slice(0, MAX_DECISION), "all")}
                  >
                    {busy === "all" ? DEFINITION_TEXT.working : `${DEFINITION_TEXT.approveAll} (${Math.min(waiting.length, MAX_DECISION)})`}
                  </Button>
                </div>
              )}
              <ul className="mt-3 space-y-4">
                {view.changes.map((c) => (
                  <ChangeCard
                    key={`${c.kind}:${c.name}`}
                    change={c}
                    busy={busy}
                    onDecide={(d) => void decide(d, [c], `${c.kind}:${c.name}`)}
                  />
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}

const STATUS_STYLE: Record<DefinitionChange["status"], string> = {
  changed: "bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200",
  new: "bg-sky-100 text-sky-800 dark:bg-sky-900/50 dark:text-sky-200",
  rejected: "bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200",
};

function ChangeCard({
  change,
  busy,
  onDecide,
}: {
  change: DefinitionChange;
  busy: string | null;
  onDecide: (d: "approve" | "reject") => void;
}) {
  const key = `${change.kind}:${change.name}`;
  const label =
    change.status === "changed" ? DEFINITION_TEXT.changed : change.status === "new" ? DEFINITION_TEXT.added : DEFINITION_TEXT.rejected;
  return (
    <li className="rounded-lg border border-slate-200 p-3 dark:border-slate-700" data-definition={key}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm">
          <span className="text-slate-600 dark:text-slate-400">{DEFINITION_TEXT.kindLabel[change.kind]} </span>
          <span className="font-mono font-semibold">{change.name}</span>{" "}
          <span className={`ml-1 rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[change.status]}`}>{label}</span>
        </p>
        <div className="flex gap-2">
          {change.status !== "rejected" && (
            <Button
              variant="danger"
              size="sm"
              disabled={busy !== null}
              onClick={() => onDecide("reject")}
              aria-label={`${DEFINITION_TEXT.reject} ${change.name}`}
            >
              {busy === key ? DEFINITION_TEXT.working : DEFINITION_TEXT.reject}
            </Button>
          )}
          <Button
            variant="success"
            size="sm"
            disabled={busy !== null}
            onClick={() => onDecide("approve")}
            aria-label={`${DEFINITION_TEXT.approve} ${change.name}`}
          >
            {busy === key ? DEFINITION_TEXT.working : DEFINITION_TEXT.approve}
          </Button>
        </div>
      </div>
      <DefinitionDiff before={change.approved} after={change.current} />
    </li>
  );
}

/** A definition as text to compare line by line: its fields one after the other, descriptions as written, hidden characters shown. */
function asText(def: Record<string, unknown> | null): string {
  if (!def) return "";
  return (
    Object.keys(def)
      .sort((a, b) => (a === "name" ? -1 : b === "name" ? 1 : a.localeCompare(b)))
      .map((k) => {
        const v = def[k];
        return showInvisible(typeof v === "string" ? `${k}: ${v}` : `${k}: ${JSON.stringify(v, null, 2)}`);
      })
      .join("\n") + "\n"
  );
}

/** The approved and the listed definition, line by line: removed lines marked −, added ones +. */
function DefinitionDiff({ before, after }: { before: Record<string, unknown> | null; after: Record<string, unknown> }) {
  const parts = diffLines(asText(before), asText(after));
  return (
    <pre
      tabIndex={0}
      className="mt-2 max-h-96 overflow-auto whitespace-pre-wrap break-words rounded bg-slate-50 p-2 text-xs leading-5 dark:bg-slate-950"
      data-testid="definition-diff"
      aria-label="Differences: lines starting with − were approved, lines starting with + are listed now"
    >
      {parts.flatMap((p, i) =>
        p.value
          .replace(/\n$/, "")
          .split("\n")
          .map((line, j) => (
            <div
              key={`${i}-${j}`}
              className={
                p.added
                  ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-200"
                  : p.removed
                    ? "bg-red-100 text-red-900 line-through decoration-red-400/60 dark:bg-red-950/60 dark:text-red-200"
                    : "text-slate-600 dark:text-slate-400"
              }
              data-diff={p.added ? "added" : p.removed ? "removed" : "same"}
            >
              <span aria-hidden className="mr-2 select-none">
                {p.added ? "+" : p.removed ? "−" : " "}
              </span>
              {line}
            </div>
          )),
      )}
    </pre>
  );
}
