import { getTextareaProps, type FieldMetadata } from "@conform-to/react";
import { Eye, Pencil } from "~/web/components/icons";
import { useState } from "react";
import { useHydrated } from "../../lib/forms";
import { Markdown } from "../Markdown";
import { Button, formLegend, formSection, inputClass } from "../ui";
import type { ServerFormInput } from "./form-values";

// The server form's Documentation: Markdown typed in, with Write and Preview tabs once scripts run.

export function DocumentationEditor({ meta, disabled }: { meta: FieldMetadata<string, ServerFormInput>; disabled: boolean }) {
  const hydrated = useHydrated();
  const [preview, setPreview] = useState(false);
  const [doc, setDoc] = useState(String(meta.initialValue ?? ""));
  return (
    <fieldset className={formSection} disabled={disabled}>
      <legend className={formLegend}>Documentation</legend>
      {/* The preview renders in the browser: offered once scripts run. */}
      {hydrated && (
        <div className="flex gap-2" role="tablist" aria-label="Documentation editor">
          <Button
            role="tab"
            aria-selected={!preview}
            onClick={() => setPreview(false)}
            variant={preview ? "secondary" : "primary"}
            size="sm"
          >
            <Pencil className="h-4 w-4" aria-hidden /> Write
          </Button>
          <Button role="tab" aria-selected={preview} onClick={() => setPreview(true)} variant={preview ? "primary" : "secondary"} size="sm">
            <Eye className="h-4 w-4" aria-hidden /> Preview
          </Button>
        </div>
      )}
      {preview && (
        <div className="min-h-40 rounded-md border border-slate-200 p-4 dark:border-slate-800" data-testid="doc-preview">
          {doc.trim() ? <Markdown>{doc}</Markdown> : <p className="text-slate-600 dark:text-slate-400">Nothing to preview yet.</p>}
        </div>
      )}
      <textarea
        {...getTextareaProps(meta)}
        hidden={preview}
        aria-label="Documentation (Markdown)"
        onChange={(e) => setDoc(e.target.value)}
        rows={8}
        placeholder="# My server&#10;&#10;What it does, its tools, how to configure it."
        className={`${inputClass} font-mono text-sm`}
      />
    </fieldset>
  );
}
