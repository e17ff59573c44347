import { ADMIN_TEXT, type AdminServer } from "~/shared/catalog";

// An admin card's What runs: the command or repository a submission would deploy, how it speaks, its keys.

/** What approving lets people deploy: the command or repository, the keys it asks for, how it speaks, or why it cannot run here. */
export function WhatRuns({ runs, keys }: { runs: NonNullable<AdminServer["runs"]>; keys: NonNullable<AdminServer["required_keys"]> }) {
  const dt = "text-slate-600 dark:text-slate-400";
  return (
    <section
      aria-label={ADMIN_TEXT.whatRuns}
      data-testid="what-runs"
      className="mt-4 rounded-lg border border-slate-200 p-3 text-sm dark:border-slate-800"
    >
      <h4 className="font-semibold">{ADMIN_TEXT.whatRuns}</h4>
      <dl className="mt-2 space-y-1.5">
        {runs.command && (
          <div>
            <dt className={dt}>Command</dt>
            <dd>
              <code className="block overflow-x-auto whitespace-pre rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-950">
                {runs.command}
              </code>
            </dd>
          </div>
        )}
        {runs.repository && (
          <div>
            <dt className={dt}>Builds the repository</dt>
            <dd className="break-all font-mono text-xs">{runs.repository}</dd>
          </div>
        )}
        {runs.remote && (
          <div>
            <dt className={dt}>Hosted by its publisher at</dt>
            <dd className="break-all font-mono text-xs">{runs.remote}</dd>
          </div>
        )}
        <div>
          <dt className={`${dt} inline`}>Transport: </dt>
          <dd className="inline font-mono text-xs">{runs.transport ?? "-"}</dd>
        </div>
        <div>
          <dt className={`${dt} inline`}>Required keys: </dt>
          <dd className="inline break-all font-mono text-xs">{keys.length ? keys.map((k) => k.env_var).join(", ") : ADMIN_TEXT.noKeys}</dd>
        </div>
      </dl>
      {runs.reason && <p className="mt-2 text-amber-800 dark:text-amber-300">{runs.reason}</p>}
    </section>
  );
}
