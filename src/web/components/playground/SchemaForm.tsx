import { Plus, Trash2 } from "~/web/components/icons";
import type { ReactNode } from "react";
import { Button, inputClass } from "../ui";
import { own, toValue, type Errors, type Field, type ObjectField, type Value } from "./schema";
import { PLAYGROUND_TEXT as T } from "./text";

// The form a tool's input schema makes (schema.ts decides the fields): each input has its
// label, its description as help text, its error; required fields are marked.

type Obj = { [key: string]: Value };
const asObj = (v: Value): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? v : {});
const idOf = (prefix: string, path: string) => `${prefix}-${path.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0)}`)}`;

interface FieldProps {
  f: Field;
  value: Value;
  onChange: (v: Value) => void;
  path: string;
  prefix: string;
  errors: Errors;
  /** shown in place of the field's own label (array items) */
  itemLabel?: string;
}

function Label({ f, id, text }: { f: Field; id: string; text?: string }) {
  return (
    <label htmlFor={id} className="mb-1 block text-sm font-medium">
      <span className="font-mono">{text ?? f.label}</span>
      {f.required && (
        <span className="ml-0.5 text-red-600 dark:text-red-400" aria-hidden title={T.required}>
          *
        </span>
      )}
      {f.required && <span className="sr-only">{T.requiredSr}</span>}
      <span className="ml-2 text-xs font-normal text-slate-600 dark:text-slate-400">{f.kind === "json" ? T.json : f.kind}</span>
    </label>
  );
}

function Help({ f, id, error }: { f: Field; id: string; error?: string }) {
  return (
    <>
      {f.description && (
        <p id={`${id}-help`} className="mt-1 whitespace-pre-line text-xs text-slate-600 dark:text-slate-400">
          {f.description}
        </p>
      )}
      {f.kind === "json" && <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{T.jsonHelp(f.why)}</p>}
      {error && (
        <p id={`${id}-error`} className="mt-1 text-xs font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </>
  );
}

function FieldView({ f, value, onChange, path, prefix, errors, itemLabel }: FieldProps) {
  const id = idOf(prefix, path);
  const error = own(errors, path);
  const describedBy = [f.description ? `${id}-help` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    "aria-describedby": describedBy,
    "aria-invalid": error ? true : undefined,
    "aria-required": f.required || undefined,
  };
  const text = typeof value === "string" ? value : "";

  if (f.kind === "object") {
    return (
      <fieldset className="space-y-4 rounded-lg border border-slate-200 p-4 dark:border-slate-700">
        <legend className="px-1 font-mono text-sm font-medium">
          {itemLabel ?? f.label}
          {f.required && <span className="text-red-600 dark:text-red-400"> *</span>}
        </legend>
        {f.description && <p className="text-xs text-slate-600 dark:text-slate-400">{f.description}</p>}
        <Fields fields={f.fields} value={value} onChange={onChange} path={path} prefix={prefix} errors={errors} />
      </fieldset>
    );
  }
  if (f.kind === "array") {
    const items = Array.isArray(value) ? value : [];
    const set = (i: number, v: Value) => onChange(items.map((x, j) => (j === i ? v : x)));
    return (
      <fieldset className="space-y-3 rounded-lg border border-dashed border-slate-300 p-4 dark:border-slate-700">
        <legend className="px-1 font-mono text-sm font-medium">
          {itemLabel ?? f.label}
          {f.required && <span className="text-red-600 dark:text-red-400"> *</span>}{" "}
          <span className="text-xs font-normal text-slate-600 dark:text-slate-400">{T.listOf(f.item.kind)}</span>
        </legend>
        <Help f={f} id={id} error={error} />
        {items.map((x, i) => (
          <div key={i} className="flex items-start gap-2">
            <div className="min-w-0 flex-1">
              <FieldView
                f={f.item}
                value={x}
                onChange={(v) => set(i, v)}
                path={`${path}[${i}]`}
                prefix={prefix}
                errors={errors}
                itemLabel={`${itemLabel ?? f.label} ${i + 1}`}
              />
            </div>
            <Button
              variant="ghost"
              size="icon"
              aria-label={T.removeItem(i + 1, f.label)}
              onClick={() => onChange(items.filter((_, j) => j !== i))}
            >
              <Trash2 className="h-4 w-4" aria-hidden />
            </Button>
          </div>
        ))}
        <Button
          variant="secondary"
          size="xs"
          onClick={() => onChange([...items, toValue(f.item, f.item.default)])}
          disabled={f.maxItems !== undefined && items.length >= f.maxItems}
        >
          <Plus className="h-3.5 w-3.5" aria-hidden /> {T.addItem}
        </Button>
      </fieldset>
    );
  }
  if (f.kind === "boolean") {
    return (
      <div>
        <label className="flex items-center gap-2 text-sm font-medium">
          <input
            type="checkbox"
            {...common}
            checked={value === true}
            onChange={(e) => onChange(e.target.checked)}
            className="h-4 w-4 rounded border-slate-300 accent-indigo-600"
          />
          <span className="font-mono">{itemLabel ?? f.label}</span>
          {f.required && <span className="sr-only">{T.requiredSr}</span>}
        </label>
        <Help f={f} id={id} error={error} />
      </div>
    );
  }
  let input: ReactNode = null;
  if (f.kind === "enum") {
    input = (
      <select {...common} className={inputClass} value={text} onChange={(e) => onChange(e.target.value)}>
        {(!f.required || text === "") && <option value="">{f.required ? T.choose : T.none}</option>}
        {f.options.map((o, i) => (
          <option key={i} value={String(i)}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (f.kind === "number" || f.kind === "integer") {
    input = (
      <input
        {...common}
        type="text"
        inputMode={f.kind === "integer" ? "numeric" : "decimal"}
        className={`${inputClass} font-mono`}
        value={text}
        placeholder={f.kind === "integer" ? T.wholeNumber : T.number}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else if (f.kind === "json" || (f.kind === "string" && f.long)) {
    input = (
      <textarea
        {...common}
        rows={f.kind === "json" ? 4 : 3}
        spellCheck={f.kind !== "json"}
        className={`${inputClass} ${f.kind === "json" ? "font-mono text-sm" : ""}`}
        value={text}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else if (f.kind === "string") {
    input = (
      <input
        {...common}
        type={f.inputType}
        className={inputClass}
        value={text}
        placeholder={f.placeholder}
        autoComplete="off"
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div>
      <Label f={f} id={id} text={itemLabel} />
      {input}
      <Help f={f} id={id} error={error} />
    </div>
  );
}

function Fields({
  fields,
  value,
  onChange,
  path,
  prefix,
  errors,
}: {
  fields: Field[];
  value: Value;
  onChange: (v: Value) => void;
  path: string;
  prefix: string;
  errors: Errors;
}) {
  const obj = asObj(value);
  return (
    <>
      {fields.map((c) => (
        <FieldView
          key={c.key}
          f={c}
          value={own(obj, c.key)}
          onChange={(v) => onChange({ ...obj, [c.key]: v })}
          path={path ? `${path}.${c.key}` : c.key}
          prefix={prefix}
          errors={errors}
        />
      ))}
    </>
  );
}

export function SchemaForm({
  root,
  value,
  onChange,
  errors,
  prefix,
}: {
  root: ObjectField;
  value: Value;
  onChange: (v: Value) => void;
  errors: Errors;
  prefix: string;
}) {
  if (root.fields.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">{T.noArguments}</p>;
  return (
    <div className="space-y-4">
      <Fields fields={root.fields} value={value} onChange={onChange} path="" prefix={prefix} errors={errors} />
    </div>
  );
}
