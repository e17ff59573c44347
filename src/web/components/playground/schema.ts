import { label } from "./limits";
import { PLAYGROUND_TEXT } from "./text";

// A tool's input schema (JSON Schema, as the server sent it) as form fields, the form's values,
// and the arguments they make. What the form cannot express (oneOf, $ref, ...) becomes a JSON
// field, or the whole form falls back to raw JSON. A hostile schema is bounded: nesting beyond
// MAX_DEPTH becomes a JSON field, and more than MAX_FIELDS fields fall back to raw JSON.

export const MAX_DEPTH = 6;
export const MAX_FIELDS = 200;
const MAX_OPTIONS = 500;

interface Base {
  key: string;
  label: string;
  description: string;
  required: boolean;
  default?: unknown;
}
export type Field =
  | (Base & { kind: "string"; long: boolean; inputType: "text" | "email" | "url" | "date" | "password"; placeholder?: string })
  | (Base & { kind: "number" | "integer"; minimum?: number; maximum?: number })
  | (Base & { kind: "boolean" })
  | (Base & { kind: "enum"; options: { value: unknown; label: string }[] })
  | (Base & { kind: "array"; item: Field; minItems?: number; maxItems?: number })
  | (Base & { kind: "object"; fields: Field[] })
  | (Base & { kind: "json"; why: string });
export type ObjectField = Extract<Field, { kind: "object" }>;

/** The form of a tool, or why it is raw JSON only. */
export type Form = { ok: true; root: ObjectField } | { ok: false; why: string };

/** What a field holds while edited: text for strings, numbers and JSON; an index for enums. */
export type Value = string | boolean | undefined | Value[] | { [key: string]: Value };

type S = Record<string, unknown>;
const isObj = (v: unknown): v is S => typeof v === "object" && v !== null && !Array.isArray(v);
/** `o[key]` for keys a server chose: never an inherited property such as `constructor` or `toString`. */
export const own = <V>(o: Readonly<Record<string, V>>, key: string): V | undefined => (Object.hasOwn(o, key) ? o[key] : undefined);
const UNSUPPORTED = ["oneOf", "anyOf", "allOf", "not", "$ref", "if", "patternProperties"] as const;
const W = PLAYGROUND_TEXT.why;
const LONG_NAME = /text|content|body|prompt|code|query|json|markdown|html|description|message|script/i;

export function buildForm(schema: unknown): Form {
  if (!isObj(schema)) return { ok: false, why: W.noSchema };
  const budget = { left: MAX_FIELDS };
  const root = field(schema, "", "", true, 0, budget);
  if (budget.left < 0) return { ok: false, why: W.tooManyFields(MAX_FIELDS) };
  if (root.kind !== "object") return { ok: false, why: root.kind === "json" ? root.why : W.notObject };
  return { ok: true, root };
}

/** `{ anyOf: [X, { type: "null" }] }` and `type: [X, "null"]` (optional values as many generators write them) read as X. */
function unwrapNullable(s: S): S {
  const alts = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(alts) && alts.length === 2) {
    const rest = alts.filter((a) => !(isObj(a) && a.type === "null"));
    if (rest.length === 1 && isObj(rest[0])) {
      const { anyOf: _a, oneOf: _o, ...outer } = s;
      return { ...rest[0], ...outer };
    }
  }
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== "null");
    if (types.length === 1) return { ...s, type: types[0] };
  }
  return s;
}

function field(raw: S, key: string, fallbackLabel: string, required: boolean, depth: number, budget: { left: number }): Field {
  budget.left--;
  const s = unwrapNullable(raw);
  const base: Base = { key, label: label(s.title, 200) || fallbackLabel, description: label(s.description), required };
  if (s.default !== undefined) base.default = s.default;
  else if (s.const !== undefined) base.default = s.const;
  const unsupported = UNSUPPORTED.find((k) => s[k] !== undefined);
  if (unsupported) return { ...base, kind: "json", why: W.uses(unsupported) };
  if (Array.isArray(s.enum)) {
    if (s.enum.length === 0 || s.enum.length > MAX_OPTIONS) return { ...base, kind: "json", why: W.tooManyChoices };
    return {
      ...base,
      kind: "enum",
      options: s.enum.map((v) => ({ value: v, label: typeof v === "string" ? label(v, 200) : JSON.stringify(v).slice(0, 200) })),
    };
  }
  const type = s.type ?? (isObj(s.properties) ? "object" : undefined);
  switch (type) {
    case "string": {
      const format = typeof s.format === "string" ? s.format : "";
      const inputType =
        format === "email"
          ? "email"
          : format === "uri" || format === "url"
            ? "url"
            : format === "date"
              ? "date"
              : format === "password"
                ? "password"
                : "text";
      const maxLength = typeof s.maxLength === "number" ? s.maxLength : undefined;
      const long =
        inputType === "text" && (maxLength === undefined ? LONG_NAME.test(key) || s.contentMediaType !== undefined : maxLength > 200);
      const placeholder = own(PLAYGROUND_TEXT.placeholders, format);
      return { ...base, kind: "string", long, inputType, placeholder };
    }
    case "number":
    case "integer":
      return { ...base, kind: type === "integer" ? "integer" : "number", minimum: num(s.minimum), maximum: num(s.maximum) };
    case "boolean":
      return { ...base, kind: "boolean" };
    case "array": {
      if (depth >= MAX_DEPTH || !isObj(s.items)) return { ...base, kind: "json", why: depth >= MAX_DEPTH ? W.tooDeep : W.anyItems };
      const item = field(s.items, "", PLAYGROUND_TEXT.item, true, depth + 1, budget);
      return { ...base, kind: "array", item, minItems: num(s.minItems), maxItems: num(s.maxItems) };
    }
    case "object": {
      const props = isObj(s.properties) ? s.properties : {};
      const names = Object.keys(props);
      if (depth >= MAX_DEPTH) return { ...base, kind: "json", why: W.tooDeep };
      // Free-form maps (additionalProperties without properties) have no fixed fields to show.
      if (names.length === 0 && s.additionalProperties !== undefined && s.additionalProperties !== false)
        return { ...base, kind: "json", why: W.anyKeys };
      const req = new Set(Array.isArray(s.required) ? s.required.filter((r) => typeof r === "string") : []);
      const fields: Field[] = [];
      for (const n of names) {
        if (budget.left < 0) break;
        const sub = own(props, n);
        fields.push(
          isObj(sub)
            ? field(sub, n, n, req.has(n), depth + 1, budget)
            : { key: n, label: n, description: "", required: req.has(n), kind: "json", why: W.fieldNoSchema },
        );
      }
      return { ...base, kind: "object", fields };
    }
    default:
      return { ...base, kind: "json", why: type === undefined ? W.anyValue : W.type(label(JSON.stringify(type), 80)) };
  }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The form's value for `v` (a default, or arguments from raw JSON); empty when `v` is undefined. */
export function toValue(f: Field, v: unknown): Value {
  switch (f.kind) {
    case "string":
      return typeof v === "string" ? v : v === undefined ? "" : String(v);
    case "number":
    case "integer":
      return typeof v === "number" ? String(v) : typeof v === "string" ? v : "";
    case "boolean":
      return typeof v === "boolean" ? v : f.required ? false : undefined;
    case "enum": {
      const i = v === undefined ? -1 : f.options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(v));
      return i < 0 ? "" : String(i);
    }
    case "array":
      return Array.isArray(v) ? v.slice(0, 1000).map((x) => toValue(f.item, x)) : [];
    case "object": {
      const o = isObj(v) ? v : {};
      return Object.fromEntries(
        f.fields.map((c) => {
          const given = own(o, c.key);
          return [c.key, toValue(c, given !== undefined ? given : c.default)];
        }),
      );
    }
    case "json":
      return v === undefined ? "" : JSON.stringify(v, null, 2);
  }
}

/** The form as it first shows: defaults filled in. */
export function initialValue(root: ObjectField): Value {
  return toValue(root, root.default);
}

export type Errors = Record<string, string>;

/** Arguments from the form's values, with a message per field path that is wrong or missing. */
export function collect(root: ObjectField, value: Value): { args: Record<string, unknown>; errors: Errors } {
  // No prototype: a field named "__proto__" or "constructor" is a path like any other.
  const errors: Errors = Object.create(null) as Errors;
  const out = read(root, value, "", errors);
  return { args: isObj(out) ? out : {}, errors };
}

function read(f: Field, v: Value, path: string, errors: Errors): unknown {
  const missing = () => {
    if (f.required) errors[path] = PLAYGROUND_TEXT.required;
    return undefined;
  };
  switch (f.kind) {
    case "string":
      return typeof v === "string" && v !== "" ? v : missing();
    case "number":
    case "integer": {
      const t = typeof v === "string" ? v.trim() : "";
      if (!t) return missing();
      const n = Number(t);
      if (!Number.isFinite(n)) errors[path] = PLAYGROUND_TEXT.enterNumber;
      else if (f.kind === "integer" && !Number.isInteger(n)) errors[path] = PLAYGROUND_TEXT.enterWholeNumber;
      else if (f.minimum !== undefined && n < f.minimum) errors[path] = PLAYGROUND_TEXT.atLeast(f.minimum);
      else if (f.maximum !== undefined && n > f.maximum) errors[path] = PLAYGROUND_TEXT.atMost(f.maximum);
      return n;
    }
    case "boolean":
      return typeof v === "boolean" ? v : missing();
    case "enum":
      return typeof v === "string" && v !== "" ? f.options[Number(v)]?.value : missing();
    case "array": {
      const items = Array.isArray(v) ? v : [];
      if (!f.required && items.length === 0) return undefined;
      if (f.minItems !== undefined && items.length < f.minItems) errors[path] = PLAYGROUND_TEXT.atLeastItems(f.minItems);
      if (f.maxItems !== undefined && items.length > f.maxItems) errors[path] = PLAYGROUND_TEXT.atMostItems(f.maxItems);
      return items.map((x, i) => read(f.item, x, `${path}[${i}]`, errors) ?? null);
    }
    case "object": {
      const o = isObj(v) ? v : {};
      // An optional object left empty is left out, rather than failing on its own required fields.
      if (!f.required && path !== "" && isBlank(f, o)) return undefined;
      const out: Record<string, unknown> = {};
      for (const c of f.fields) {
        const x = read(c, own(o, c.key), path ? `${path}.${c.key}` : c.key, errors);
        // defineProperty: a property named "__proto__" stays an argument, not the prototype.
        if (x !== undefined) Object.defineProperty(out, c.key, { value: x, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case "json": {
      const t = typeof v === "string" ? v.trim() : "";
      if (!t) return missing();
      try {
        return JSON.parse(t) as unknown;
      } catch (e) {
        errors[path] = PLAYGROUND_TEXT.notJson((e as Error).message);
        return undefined;
      }
    }
  }
}

function isBlank(f: Field, v: Value): boolean {
  if (f.kind === "object") return f.fields.every((c) => isBlank(c, isObj(v) ? own(v, c.key) : undefined));
  if (f.kind === "array") return !Array.isArray(v) || v.length === 0;
  return v === undefined || v === "" || (f.kind === "boolean" && v === false);
}

/** Raw JSON arguments: a parse error, or the object they must be. */
export function parseRaw(text: string): { args: Record<string, unknown> } | { error: string } {
  if (!text.trim()) return { args: {} };
  try {
    const v = JSON.parse(text) as unknown;
    return isObj(v) ? { args: v } : { error: PLAYGROUND_TEXT.notAnObject };
  } catch (e) {
    return { error: PLAYGROUND_TEXT.notJson((e as Error).message) };
  }
}

/** A prompt's arguments (all strings) as a form. */
export function promptForm(args: unknown): ObjectField {
  const list = (Array.isArray(args) ? args : []).filter(isObj).slice(0, MAX_FIELDS);
  return {
    key: "",
    label: "",
    description: "",
    required: true,
    kind: "object",
    fields: list.map((a) => {
      const key = label(a.name, 200);
      return {
        key,
        label: label(a.title, 200) || key,
        description: label(a.description),
        required: a.required === true,
        kind: "string",
        long: false,
        inputType: "text",
      };
    }),
  };
}
