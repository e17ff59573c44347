import { CATEGORIES, type AdminServer } from "~/shared/catalog";
import { SYNC_TEXT } from "~/shared/catalog-sync";
import { Enhanced, useActionForm } from "../../lib/forms";
import { Alert, Button, inputClass } from "../ui";
import type { AdminAnswer } from "./answer";

// 'Edit entry' on an admin card: what readers see of it (name, description, category, tags). The
// registry sync keeps these edits (the entry's 'Local edits') until an admin takes upstream again.
export function EditEntry({ s }: { s: AdminServer }) {
  const { fetcher, busy } = useActionForm<AdminAnswer>(`admin-edit-${s.id}`);
  const error = fetcher.data?.error ?? null;
  const id = (f: string) => `edit-${s.id}-${f}`;
  return (
    <details className="mt-3">
      <summary className="cursor-pointer text-sm font-medium text-indigo-700 dark:text-indigo-300">{SYNC_TEXT.edit}</summary>
      <fetcher.Form method="post" className="mt-3 space-y-3">
        <Enhanced />
        <input type="hidden" name="id" value={s.id} />
        <div>
          <label htmlFor={id("name")} className="block text-sm font-medium">
            Name
          </label>
          <input id={id("name")} name="name" defaultValue={s.name} required maxLength={200} className={inputClass} />
        </div>
        <div>
          <label htmlFor={id("description")} className="block text-sm font-medium">
            Description
          </label>
          <textarea id={id("description")} name="description" defaultValue={s.description} required rows={3} className={inputClass} />
        </div>
        <div>
          <label htmlFor={id("category")} className="block text-sm font-medium">
            Category
          </label>
          <select id={id("category")} name="category" defaultValue={s.category} className={inputClass}>
            {CATEGORIES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={id("tags")} className="block text-sm font-medium">
            Tags (comma separated)
          </label>
          <input id={id("tags")} name="tags" defaultValue={s.tags.join(", ")} className={inputClass} />
        </div>
        {error && <Alert kind="error">{error}</Alert>}
        <Button type="submit" name="intent" value="edit" size="sm" disabled={busy}>
          {SYNC_TEXT.save}
        </Button>
      </fetcher.Form>
    </details>
  );
}
