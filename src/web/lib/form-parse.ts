import { parseWithZod } from "@conform-to/zod/v4";
import type { $ZodType } from "zod/v4/core";

/**
 * A posted form parsed with a shared schema (in the browser before sending, and again by the
 * route action): each problem at its field. A message that speaks of several fields at once
 * ('Please fill in all required fields') is said once, at the top of the form, not at each field.
 */
export function parseForm<S extends $ZodType>(formData: FormData | URLSearchParams, schema: S, formLevel: readonly string[] = []) {
  const submission = parseWithZod(formData, { schema });
  const errors = (submission as { error?: Record<string, string[] | null> }).error;
  if (errors && formLevel.length) {
    const lifted: string[] = [];
    for (const [name, messages] of Object.entries(errors)) {
      if (!name || !messages) continue;
      const keep = messages.filter((m) => !formLevel.includes(m));
      for (const m of messages) if (formLevel.includes(m) && !lifted.includes(m)) lifted.push(m);
      if (keep.length) errors[name] = keep;
      else delete errors[name];
    }
    if (lifted.length) errors[""] = [...(errors[""] ?? []).filter((m) => !lifted.includes(m)), ...lifted];
  }
  return submission;
}
