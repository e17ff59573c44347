import { Info } from "~/web/components/icons";

// The submit page's aside: what reviewers look for in a submission.

export function SubmissionGuidelines() {
  return (
    <aside className="h-fit rounded-xl border border-indigo-200 bg-indigo-50 p-6 text-sm dark:border-indigo-900 dark:bg-indigo-950/40">
      <h2 className="flex items-center gap-2 font-semibold">
        <Info className="h-4 w-4" aria-hidden /> Submission guidelines
      </h2>
      <ul className="mt-3 list-disc space-y-2 pl-5 text-slate-700 dark:text-slate-300">
        <li>Submissions are reviewed for quality, security and usefulness before they appear in the directory.</li>
        <li>Describe what the server does and which keys it needs.</li>
        <li>Link the source repository so reviewers and users can check the code.</li>
        <li>Our team may contact you about your submission.</li>
      </ul>
    </aside>
  );
}
