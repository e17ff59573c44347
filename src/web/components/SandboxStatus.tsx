import { CheckCircle2, ShieldAlert, ShieldCheck, XCircle } from "~/web/components/icons";
import { SANDBOX_TEXT, type SandboxInfo } from "../../shared/deployments";
import { Alert } from "./ui";

// The admin page's view of how hosted servers are isolated here: the layer in force and each
// guarantee of the threat model, held (and how) or missing (and why), as start-up found them.

export type SandboxSummary = Pick<SandboxInfo, "layer" | "complete" | "notes" | "guarantees">;

export function SandboxStatus({ sandbox, policy }: { sandbox: SandboxSummary; policy: "admins" | "everyone" }) {
  const held = sandbox.guarantees.filter((g) => g.ok).length;
  const Shield = sandbox.complete ? ShieldCheck : ShieldAlert;
  return (
    <section
      aria-labelledby="sandbox"
      className="mt-6 rounded-xl border border-slate-200 p-5 dark:border-slate-800"
      data-testid="sandbox-status"
    >
      <h2 id="sandbox" className="flex items-center gap-2 text-lg font-semibold">
        <Shield className={`h-5 w-5 ${sandbox.complete ? "text-emerald-600" : "text-amber-500"}`} aria-hidden /> {SANDBOX_TEXT.title}
      </h2>
      <p className="mt-1 font-mono text-xs text-slate-600 dark:text-slate-400">{sandbox.layer}</p>
      <p
        className={`mt-2 text-sm ${sandbox.complete ? "text-slate-700 dark:text-slate-300" : "font-medium text-amber-800 dark:text-amber-300"}`}
      >
        {sandbox.complete ? SANDBOX_TEXT.complete : policy === "admins" ? SANDBOX_TEXT.adminsOnly : SANDBOX_TEXT.everyone}
      </p>
      {sandbox.notes.map((n) => (
        <div key={n} className="mt-3">
          <Alert kind="error">Hosting: {n}</Alert>
        </div>
      ))}
      <details className="mt-3" open={!sandbox.complete}>
        <summary className="cursor-pointer text-sm font-medium">{SANDBOX_TEXT.protections(held, sandbox.guarantees.length)}</summary>
        <ul className="mt-2 space-y-2">
          {sandbox.guarantees.map((g) => (
            <li key={g.key} className="flex items-start gap-2 text-sm" data-testid={`guarantee-${g.key}`} data-ok={g.ok}>
              {g.ok ? (
                <CheckCircle2 className="mt-0.5 h-4 w-4 shrink-0 text-emerald-600" aria-label="holds" />
              ) : (
                <XCircle className="mt-0.5 h-4 w-4 shrink-0 text-red-600" aria-label="missing" />
              )}
              <span>
                <span className="font-medium">{g.label}</span>
                <span className="block text-xs text-slate-600 dark:text-slate-400">{g.how}</span>
              </span>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
