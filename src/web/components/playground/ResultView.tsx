import { AlertCircle, ExternalLink, FileText, Link2 } from "~/web/components/icons";
import type { ReactNode } from "react";
import { formatBytes } from "~/shared/format";
import { LIMITS, type Clipped, type Media } from "./limits";
import type { Block, Blocks, PromptView, ToolView } from "./result-model";
import { PLAYGROUND_TEXT as T } from "./text";

// How results look to a person. Every server string goes into the page as a React text node,
// never as HTML; links only for http(s); media only as data: URLs limits.ts vetted.

const pre =
  "max-h-96 overflow-auto whitespace-pre-wrap break-words rounded-md bg-slate-50 p-3 font-mono text-sm text-slate-900 dark:bg-slate-950 dark:text-slate-100";
const note = "text-xs text-slate-600 dark:text-slate-400";

function ClipNote({ c, what = T.characters }: { c: Clipped; what?: string }) {
  if (!c.clipped) return null;
  return <p className={`mt-1 ${note}`}>{c.total > c.text.length ? T.showingFirst(c.text.length, c.total, what) : T.shortenedText}</p>;
}

function TextBlock({ c }: { c: Clipped }) {
  return (
    <div>
      <pre tabIndex={0} className={pre}>
        {c.text}
      </pre>
      <ClipNote c={c} />
    </div>
  );
}

export function JsonBlock({ title, c }: { title: string; c: Clipped }) {
  return (
    <div>
      <p className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{title}</p>
      <pre tabIndex={0} className={pre}>
        {c.text}
      </pre>
      {c.clipped && <p className={`mt-1 ${note}`}>{T.shortenedJson}</p>}
    </div>
  );
}

function MediaNote({ m }: { m: Extract<Media, { ok: false }> }) {
  return <p className={`rounded-md border border-dashed border-slate-300 p-3 ${note} dark:border-slate-700`}>{m.why}</p>;
}

function Card({ icon, children }: { icon: ReactNode; children: ReactNode }) {
  return (
    <div className="flex gap-3 rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700">
      <span className="mt-0.5 shrink-0 text-slate-400">{icon}</span>
      <div className="min-w-0 flex-1 space-y-1">{children}</div>
    </div>
  );
}

export function BlockView({ b }: { b: Block }) {
  switch (b.kind) {
    case "text":
      return <TextBlock c={b.text} />;
    case "json":
      return <JsonBlock title={b.title} c={b.json} />;
    case "image":
      return b.media.ok ? (
        <figure>
          <img
            src={b.media.src}
            alt={T.imageAlt(b.mimeType)}
            className="max-h-96 max-w-full rounded-md border border-slate-200 bg-white dark:border-slate-700"
          />
          <figcaption className={`mt-1 ${note}`}>
            {b.mimeType}, {formatBytes(b.media.bytes)}
          </figcaption>
        </figure>
      ) : (
        <MediaNote m={b.media} />
      );
    case "audio":
      return b.media.ok ? (
        <figure>
          <audio controls src={b.media.src} className="w-full max-w-md" />
          <figcaption className={`mt-1 ${note}`}>
            {b.mimeType}, {formatBytes(b.media.bytes)}
          </figcaption>
        </figure>
      ) : (
        <MediaNote m={b.media} />
      );
    case "resource":
      return (
        <Card icon={<FileText className="h-4 w-4" aria-hidden />}>
          <p className="break-all font-mono text-xs text-slate-600 dark:text-slate-300">{b.uri}</p>
          {b.text ? (
            <TextBlock c={b.text} />
          ) : b.image?.ok ? (
            <img src={b.image.src} alt={T.imageResourceAlt(b.uri)} className="max-h-96 max-w-full rounded-md" />
          ) : (
            <p className={note}>
              {T.binary(b.blobBytes ?? 0)}
              {b.mimeType ? `, ${b.mimeType}` : ""}
            </p>
          )}
          {b.text && b.mimeType && <p className={note}>{b.mimeType}</p>}
        </Card>
      );
    case "link":
      return (
        <Card icon={<Link2 className="h-4 w-4" aria-hidden />}>
          <p className="font-medium">{b.name || T.resourceLink}</p>
          {b.href ? (
            <a
              href={b.href}
              target="_blank"
              rel="noopener nofollow ugc"
              className="inline-flex items-center gap-1 break-all font-mono text-xs text-indigo-600 hover:underline dark:text-indigo-400"
            >
              {b.uri} <ExternalLink className="h-3 w-3 shrink-0" aria-hidden />
            </a>
          ) : (
            <p className="break-all font-mono text-xs text-slate-600 dark:text-slate-300">{b.uri}</p>
          )}
          {b.description && <p className="text-slate-600 dark:text-slate-400">{b.description}</p>}
          {b.mimeType && <p className={note}>{b.mimeType}</p>}
        </Card>
      );
  }
}

function Hidden({ n }: { n: number }) {
  if (n <= 0) return null;
  return <p className={note}>{T.moreItems(LIMITS.items, n)}</p>;
}

export function BlocksView({ v }: { v: Blocks }) {
  return (
    <div className="space-y-3">
      {v.blocks.length === 0 && <p className={note}>{T.noContent}</p>}
      {v.blocks.map((b, i) => (
        <BlockView key={i} b={b} />
      ))}
      <Hidden n={v.hidden} />
    </div>
  );
}

export function ToolResultView({ v }: { v: ToolView }) {
  return (
    <div
      className={
        v.isError ? "space-y-3 rounded-md border border-red-300 bg-red-50/60 p-3 dark:border-red-900 dark:bg-red-950/30" : "space-y-3"
      }
    >
      {v.isError && (
        <p className="flex items-center gap-1.5 text-sm font-semibold text-red-700 dark:text-red-300">
          <AlertCircle className="h-4 w-4" aria-hidden /> {T.toolError}
        </p>
      )}
      {(v.blocks.length > 0 || !v.structured) && <BlocksView v={v} />}
      {v.structured && <JsonBlock title={T.structuredContent} c={v.structured} />}
    </div>
  );
}

export function PromptResultView({ v }: { v: PromptView }) {
  return (
    <div className="space-y-3">
      {v.description && <p className="text-sm text-slate-600 dark:text-slate-400">{v.description}</p>}
      {v.messages.length === 0 && <p className={note}>{T.noMessages}</p>}
      {v.messages.map((m, i) => (
        <div key={i} className="rounded-md border border-slate-200 p-3 dark:border-slate-700">
          <p className="mb-2 text-xs font-semibold uppercase tracking-wide text-indigo-600 dark:text-indigo-400">{m.role}</p>
          <div className="space-y-3">
            {m.blocks.map((b, j) => (
              <BlockView key={j} b={b} />
            ))}
          </div>
        </div>
      ))}
      <Hidden n={v.hidden} />
    </div>
  );
}
