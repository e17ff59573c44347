import ReactMarkdown, { defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";
import { isPlainText } from "./markdown-plain";

// User-written markdown rendered inert: raw HTML is not rendered, only http(s)/mailto links survive,
// and every link is marked as user content.
function safeUrl(url: string): string {
  const t = defaultUrlTransform(url);
  return /^(https?:|mailto:|#|\/)/i.test(t) ? t : "";
}

const PROSE = "prose-sb space-y-3 leading-7 text-slate-700 dark:text-slate-300";

export function Markdown({ children }: { children: string }) {
  if (isPlainText(children)) {
    return (
      <div className={PROSE}>
        <p>{children}</p>
      </div>
    );
  }
  return <ParsedMarkdown>{children}</ParsedMarkdown>;
}

/** Markdown through the parser, whatever it holds (Markdown takes a shortcut for plain text). */
export function ParsedMarkdown({ children }: { children: string }) {
  return (
    <div className={PROSE}>
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        urlTransform={safeUrl}
        components={{
          a: ({ href, children }) =>
            href ? (
              <a
                href={href}
                rel="noopener nofollow ugc"
                target="_blank"
                className="text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400"
              >
                {children}
              </a>
            ) : (
              <span>{children}</span>
            ),
          img: ({ alt }) => <span>{alt}</span>,
          code: ({ children }) => <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-sm dark:bg-slate-800">{children}</code>,
          pre: ({ children }) => (
            <pre tabIndex={0} className="overflow-x-auto rounded-lg bg-slate-100 p-3 text-sm dark:bg-slate-900">
              {children}
            </pre>
          ),
          ul: ({ children }) => <ul className="list-disc pl-6">{children}</ul>,
          ol: ({ children }) => <ol className="list-decimal pl-6">{children}</ol>,
        }}
      >
        {children}
      </ReactMarkdown>
    </div>
  );
}
