import { Send } from "~/web/components/icons";
import { Link, redirect } from "react-router";
import { mySubmissions } from "../../server/features/catalog/submissions";
import { MY_SUBMISSIONS_TEXT, type SubmissionLine } from "../../shared/catalog";
import { buttonClass, linkClass } from "../components/ui";
import { dateTime, longDate } from "../lib/dates";
import type { Route } from "./+types/submissions";

// 'My submissions' (docs/product.md#my-submissions): the servers the signed-in user submitted to
// the catalogue, pending, approved or rejected, so a submitter sees what became of each one.

export function meta() {
  return [{ title: MY_SUBMISSIONS_TEXT.title }, { name: "robots", content: "noindex" }];
}

export async function loader({ context }: Route.LoaderArgs) {
  if (!context.viewer) throw redirect("/login?redirect=/submissions");
  return { submissions: await mySubmissions(context.db, context.viewer) };
}

const BADGE: Record<SubmissionLine["status"], string> = {
  pending: "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300",
  approved: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-300",
  rejected: "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-300",
};

export default function Submissions({ loaderData }: Route.ComponentProps) {
  const { submissions } = loaderData;
  return (
    <section className="mx-auto max-w-4xl px-4 py-10">
      <h1 className="text-2xl font-bold">{MY_SUBMISSIONS_TEXT.title}</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">{MY_SUBMISSIONS_TEXT.intro}</p>
      {submissions.length === 0 ? (
        <div className="mt-6 rounded-xl border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
          <p className="text-slate-600 dark:text-slate-400">{MY_SUBMISSIONS_TEXT.empty}</p>
          <Link to="/servers/add" className={`${buttonClass("primary")} mt-4`}>
            <Send className="h-4 w-4" aria-hidden /> {MY_SUBMISSIONS_TEXT.submit}
          </Link>
        </div>
      ) : (
        <ul className="mt-6 space-y-3" data-testid="my-submissions">
          {submissions.map((s, i) => (
            <li
              key={`${s.status}-${s.id}-${i}`}
              className="rounded-xl border border-slate-200 p-4 dark:border-slate-800"
              data-testid="my-submission"
            >
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  {s.status === "rejected" ? (
                    <p className="break-words font-semibold">{s.name}</p>
                  ) : (
                    <Link to={`/server/${encodeURIComponent(s.id)}`} className={`${linkClass} break-words font-semibold`}>
                      {s.name}
                    </Link>
                  )}
                  <p className="break-all font-mono text-xs text-slate-600 dark:text-slate-400">{s.id}</p>
                </div>
                <span className={`rounded px-2 py-0.5 text-xs font-medium ${BADGE[s.status]}`} data-testid="submission-status">
                  {MY_SUBMISSIONS_TEXT.status[s.status]}
                </span>
              </div>
              <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
                Submitted{" "}
                <time dateTime={s.submitted_at} title={dateTime(s.submitted_at)}>
                  {longDate(s.submitted_at)}
                </time>
                {s.decided_at && (
                  <>
                    {" "}
                    · {s.status === "approved" ? "approved" : "rejected"}{" "}
                    <time dateTime={s.decided_at} title={dateTime(s.decided_at)}>
                      {longDate(s.decided_at)}
                    </time>
                  </>
                )}
              </p>
              {s.status === "rejected" && s.reason && (
                <div
                  className="mt-2 rounded-md bg-red-50 p-3 text-sm text-red-900 dark:bg-red-950/40 dark:text-red-200"
                  data-testid="rejection-reason"
                >
                  <p className="font-medium">{MY_SUBMISSIONS_TEXT.reason}</p>
                  <p className="mt-1 whitespace-pre-line break-words">{s.reason}</p>
                </div>
              )}
              {s.status === "rejected" && (
                <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{MY_SUBMISSIONS_TEXT.rejectedHint}</p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
