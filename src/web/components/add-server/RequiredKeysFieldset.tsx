import { Plus, X } from "~/web/components/icons";
import type { RequiredKey } from "~/shared/catalog";
import { Button, formLegend, formSection, inputClass } from "../ui";

// The submit form's Required API Keys: the keys listed so far (posted as hidden fields
// `required_keys[i].*`), the three inputs of the next one, Add Key and Remove.

/** The key being typed in, before Add Key lists it. */
export type KeyDraft = { key: string; env_var: string; description: string };

/** A required key is added only when its three parts are filled in (docs/product.md#submit-a-catalogue-entry). */
export function draftKey(d: KeyDraft): RequiredKey | null {
  const k = { key: d.key.trim(), env_var: d.env_var.trim(), description: d.description.trim() };
  return k.key && k.env_var && k.description ? k : null;
}

/** The list and the draft are the form's state (they outlive the fields' reset after a submission). */
export function RequiredKeysFieldset({
  keys,
  setKeys,
  draft,
  setDraft,
  sent,
  hydrated,
  disabled,
}: {
  keys: RequiredKey[];
  setKeys: React.Dispatch<React.SetStateAction<RequiredKey[]>>;
  draft: KeyDraft;
  setDraft: (draft: KeyDraft) => void;
  /** the submission succeeded: the list is no longer shown */
  sent: boolean;
  hydrated: boolean;
  disabled: boolean;
}) {
  // With JavaScript the list changes here; without it, the same buttons post the form (the route's action).
  function addKey(e: React.MouseEvent) {
    e.preventDefault();
    const k = draftKey(draft);
    if (!k) return;
    setKeys((all) => [...all, k]);
    setDraft({ key: "", env_var: "", description: "" });
  }
  const keyInput = (part: keyof typeof draft) => ({
    id: `submit-draft-${part}`,
    name: `draft.${part}`,
    value: draft[part],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setDraft({ ...draft, [part]: e.target.value }),
  });

  return (
    <fieldset className={formSection} disabled={disabled}>
      <legend className={formLegend}>Required API Keys</legend>
      {keys.length > 0 && !sent && (
        <ul className="space-y-2">
          {(sent ? [] : keys).map((k, i) => (
            <li
              key={`${k.env_var}-${i}`}
              className="flex items-center justify-between rounded-md border border-slate-200 px-3 py-2 text-sm dark:border-slate-700"
            >
              <span>
                {k.key} ({k.env_var})
              </span>
              <input type="hidden" name={`required_keys[${i}].key`} value={k.key} />
              <input type="hidden" name={`required_keys[${i}].env_var`} value={k.env_var} />
              <input type="hidden" name={`required_keys[${i}].description`} value={k.description} />
              <Button
                type={hydrated ? "button" : "submit"}
                name="intent"
                value={`remove-key:${i}`}
                variant="dangerText"
                size="inline"
                onClick={(e) => {
                  e.preventDefault();
                  setKeys((all) => all.filter((_, j) => j !== i));
                }}
              >
                <X className="h-4 w-4" aria-hidden /> Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <div className="grid gap-3 sm:grid-cols-3">
        <div>
          <label htmlFor="submit-draft-key" className="mb-1 block text-sm font-medium">
            Key Name
          </label>
          <input {...keyInput("key")} placeholder="GitHub Token" className={inputClass} />
        </div>
        <div>
          <label htmlFor="submit-draft-env_var" className="mb-1 block text-sm font-medium">
            Environment Variable
          </label>
          <input {...keyInput("env_var")} placeholder="GITHUB_TOKEN" className={`${inputClass} font-mono`} />
        </div>
        <div>
          <label htmlFor="submit-draft-description" className="mb-1 block text-sm font-medium">
            Description
          </label>
          <input {...keyInput("description")} className={inputClass} />
        </div>
      </div>
      <Button type={hydrated ? "button" : "submit"} name="intent" value="add-key" variant="secondary" size="sm" onClick={addKey}>
        <Plus className="h-4 w-4" aria-hidden /> Add Key
      </Button>
    </fieldset>
  );
}
