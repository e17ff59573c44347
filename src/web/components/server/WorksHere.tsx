import { CheckCircle2, KeyRound, XCircle, Ban } from "~/web/components/icons";
import { WORKS_TEXT, type CheckResult } from "~/shared/catalog";
import { longDate } from "../../lib/dates";

// What the platform's own check of a catalogue entry found (docs/product.md#works-here): it
// started in the sandbox (or its endpoint answered) and listed its tools, it needs real keys, it
// failed, or it cannot run here; with the check's date. Shown before anyone deploys it.

const LOOK = {
  works: {
    Icon: CheckCircle2,
    tone: "border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-200",
  },
  "needs-keys": {
    Icon: KeyRound,
    tone: "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200",
  },
  fails: { Icon: XCircle, tone: "border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950/40 dark:text-red-200" },
  "cannot-run": {
    Icon: Ban,
    tone: "border-slate-300 bg-slate-50 text-slate-800 dark:border-slate-700 dark:bg-slate-900/60 dark:text-slate-200",
  },
} as const;

export function checkText(check: CheckResult, remote: boolean): string {
  switch (check.outcome) {
    case "works":
      return remote ? WORKS_TEXT.worksRemote(check.tools ?? 0) : WORKS_TEXT.works(check.tools ?? 0);
    case "needs-keys":
      return remote ? WORKS_TEXT.needsSignIn : WORKS_TEXT.needsKeys;
    case "fails":
      return WORKS_TEXT.fails(check.detail ?? "it did not start.");
    case "cannot-run":
      return WORKS_TEXT.cannotRun(check.detail ?? "");
  }
}

export function WorksHere({ check, remote }: { check: CheckResult; remote: boolean }) {
  const { Icon, tone } = LOOK[check.outcome];
  return (
    <section aria-labelledby="works-here" className={`rounded-xl border p-4 text-sm ${tone}`} data-outcome={check.outcome}>
      <h2 id="works-here" className="flex items-center gap-2 font-semibold">
        <Icon className="h-4 w-4" aria-hidden /> {WORKS_TEXT.title}
      </h2>
      <p className="mt-1 break-words">{checkText(check, remote)}</p>
      <p className="mt-1 text-xs opacity-80">{WORKS_TEXT.checkedOn(longDate(check.checked_at))}</p>
    </section>
  );
}
