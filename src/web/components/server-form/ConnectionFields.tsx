import { getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from "@conform-to/react";
import { X } from "~/web/components/icons";
import { useState } from "react";
import { CONNECTION_TYPES } from "~/shared/publishers";
import { FormField } from "../../lib/forms";
import { Button, inputClass } from "../ui";
import type { ServerFormInput } from "./form-values";

// One connection of a registered server in its form: type, URL, config schema, and Remove.

type ConnectionMeta = FieldMetadata<{ type: string; url: string; configSchema: string }, ServerFormInput>;

export function ConnectionFields({
  meta,
  index,
  removable,
  removeButton,
}: {
  meta: ConnectionMeta;
  index: number;
  removable: boolean;
  removeButton: React.ComponentProps<"button">;
}) {
  const c = meta.getFieldset();
  const [type, setType] = useState(String(c.type.initialValue ?? "ws"));
  return (
    <div className="space-y-3 rounded-lg border border-slate-200 p-4 dark:border-slate-700" data-testid="connection">
      <div className="flex items-center justify-between">
        <p className="text-sm font-semibold">Connection {index + 1}</p>
        {removable && (
          <Button type="submit" variant="dangerText" size="inline" {...removeButton}>
            <X className="h-4 w-4" aria-hidden /> Remove
          </Button>
        )}
      </div>
      <div className="grid gap-3 sm:grid-cols-4">
        <FormField meta={c.type} label="Type">
          <select {...getSelectProps(c.type)} onChange={(e) => setType(e.target.value)} className={inputClass}>
            {CONNECTION_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </FormField>
        <div className="sm:col-span-3">
          <FormField meta={c.url} label="URL">
            <input
              {...getInputProps(c.url, { type: "text" })}
              placeholder={type === "ws" ? "wss://" : "https://"}
              className={`${inputClass} font-mono`}
            />
          </FormField>
        </div>
      </div>
      <FormField
        meta={c.configSchema}
        label="Config Schema (JSON)"
        hint="A JSON Schema of the settings; its required properties become the keys asked for on deploy."
      >
        <textarea
          {...getTextareaProps(c.configSchema, { ariaDescribedBy: `${c.configSchema.id}-hint` })}
          rows={4}
          placeholder='{"type": "object", "required": ["apiKey"], "properties": {"apiKey": {"type": "string"}}}'
          className={`${inputClass} font-mono text-sm`}
        />
      </FormField>
    </div>
  );
}
