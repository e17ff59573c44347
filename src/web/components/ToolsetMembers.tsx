import type { DeploymentView } from "../../shared/deployments";
import { defaultPrefix, TOOLSET_TEXT } from "../../shared/toolsets";
import { inputClass } from "./ui";

/** A deployment or connection a toolset may combine: not a toolset itself. */
export const canBeMember = (d: DeploymentView) => !d.source.startsWith("toolset:");

/**
 * The members' part of a toolset form (it posts without JavaScript): a checkbox per deployment or
 * connection (`member`), with its prefix (`prefix:<id>`), prefilled with the current or default one.
 */
export function ToolsetMembers({
  candidates,
  chosen,
  legend = true,
}: {
  candidates: DeploymentView[];
  chosen?: Map<string, string>;
  /** false where a heading already names the list */
  legend?: boolean;
}) {
  if (candidates.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">{TOOLSET_TEXT.noMembers}</p>;
  return (
    // min-w-0: a fieldset is otherwise as wide as its longest name, past a phone's screen.
    <fieldset className="min-w-0 space-y-2" aria-describedby="toolset-members-hint">
      <legend className={legend ? "mb-1 block text-sm font-medium" : "sr-only"}>{TOOLSET_TEXT.membersLabel}</legend>
      <p id="toolset-members-hint" className="text-xs text-slate-600 dark:text-slate-400">
        {TOOLSET_TEXT.membersHint}
      </p>
      <ul className="divide-y divide-slate-200 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
        {candidates.map((d) => (
          // The name takes a line of its own before it would shrink (the prefix wraps below it on a
          // phone): a long name wraps, at most 3 lines, the whole of it in its title.
          <li key={d.id} className="flex flex-wrap items-center gap-x-3 gap-y-2 px-3 py-2">
            <label className="flex min-w-0 flex-1 basis-60 items-start gap-2 text-sm">
              <input
                type="checkbox"
                name="member"
                value={d.id}
                defaultChecked={chosen?.has(d.id) ?? false}
                className="mt-0.5 h-4 w-4 shrink-0"
              />
              <span className="min-w-0">
                <span className="line-clamp-3 break-words font-mono" title={d.server_id} data-testid="toolset-member-name">
                  {d.server_id}
                </span>
                <span className="block text-xs text-slate-600 dark:text-slate-400">
                  {d.source.startsWith("remote:") ? "connection" : "deployment"} · {d.status.replace(/_/g, " ")}
                </span>
              </span>
            </label>
            <div className="w-40 shrink-0">
              <input
                name={`prefix:${d.id}`}
                aria-label={TOOLSET_TEXT.prefixLabel(d.server_id)}
                defaultValue={chosen?.get(d.id) ?? defaultPrefix(d.server_id)}
                maxLength={20}
                pattern="[a-z][a-z0-9\-]{0,19}"
                className={`${inputClass} font-mono`}
                autoComplete="off"
              />
            </div>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** The members a toolset form posted: each ticked one with its prefix. */
export function membersFromForm(form: FormData): { deployment_id: string; prefix?: string }[] {
  return form.getAll("member").map((v) => {
    const id = String(v);
    const prefix = String(form.get(`prefix:${id}`) ?? "").trim();
    return { deployment_id: id, ...(prefix ? { prefix } : {}) };
  });
}
