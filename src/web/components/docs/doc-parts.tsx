// What the Documentation page's sections share: their headings' and paragraphs' classes, and code
// blocks (highlighted on the server).

export function Code({ html, label }: { html: string; label: string }) {
  return (
    <pre
      tabIndex={0}
      className="mt-3 overflow-x-auto rounded-lg border border-slate-200 bg-slate-50 p-4 text-sm leading-relaxed dark:border-slate-800 dark:bg-slate-900"
      aria-label={label}
    >
      <code className="hljs font-mono" dangerouslySetInnerHTML={{ __html: html }} />
    </pre>
  );
}

export const h2 = "scroll-mt-24 text-2xl font-bold tracking-tight";
export const h3 = "mt-8 text-lg font-semibold";
export const p = "mt-3 leading-7 text-slate-700 dark:text-slate-300";
