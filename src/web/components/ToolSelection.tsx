import { Loader2, SlidersHorizontal } from "~/web/components/icons";
import { useEffect, useMemo, useRef, useState } from "react";
import { DEPLOY_TEXT, type DeploymentView } from "../../shared/deployments";
import type { DeployAnswer } from "../lib/deploy-types";
import { Enhanced, useActionForm, useHydrated } from "../lib/forms";
import type { ToolInfo } from "./ToolsList";
import { Alert, Button } from "./ui";

// Which tools the owner's deployment exposes (all by default). Hidden tools are left out of every
// client's listing, the playground's included, and refused if called (features/gateway/sessions/mux.ts).

interface Props {
  deployment: DeploymentView;
  /** the tools the server listed */
  tools: ToolInfo[];
  /** the selection was saved: the page reads the deployment again */
  onSaved: () => Promise<void>;
  className: string;
}

export function ToolSelection({ deployment, tools, onSaved, className }: Props) {
  const saved = useMemo(() => new Set(deployment.hidden_tools), [deployment.hidden_tools]);
  const [hidden, setHidden] = useState<Set<string>>(saved);
  const hydrated = useHydrated();
  // Saved through the page's action (lib/deploy.server.ts): a plain post without JavaScript.
  const { fetcher, answer, busy } = useActionForm<DeployAnswer>("tools");
  const [cleared, setCleared] = useState<DeployAnswer | undefined>(undefined);
  const shownAnswer = answer?.intent === "tools" && answer !== cleared ? answer : undefined;
  const message = shownAnswer
    ? shownAnswer.error
      ? { kind: "error" as const, text: shownAnswer.error }
      : { kind: "ok" as const, text: shownAnswer.message ?? DEPLOY_TEXT.toolsSaved }
    : null;
  const saw = useRef<DeployAnswer | undefined>(undefined);
  useEffect(() => {
    if (!fetcher.data || saw.current === fetcher.data) return;
    saw.current = fetcher.data;
    if (!fetcher.data.error) void onSaved();
  }, [fetcher.data, onSaved]);
  // The saved selection changed (saved here or elsewhere): start again from it. The status poll
  // hands over a new array every 5 s; only a different selection resets what is being edited.
  const savedKey = deployment.hidden_tools.join("\n");
  const [base, setBase] = useState(savedKey);
  if (base !== savedKey) {
    setBase(savedKey);
    setHidden(new Set(deployment.hidden_tools));
  }

  // A tool hidden earlier that the server no longer lists stays visible here, so it can be shown again.
  const names = [...new Set([...tools.map((t) => t.name), ...deployment.hidden_tools])];
  const changed = names.some((n) => hidden.has(n) !== saved.has(n));
  const toggle = (name: string) => {
    const next = new Set(hidden);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setHidden(next);
    setCleared(answer);
  };

  return (
    <section className={className} aria-labelledby="tool-selection" data-testid="tool-selection">
      <h2 id="tool-selection" className="flex items-center gap-2 text-lg font-semibold">
        <SlidersHorizontal className="h-5 w-5 text-indigo-500" aria-hidden /> {DEPLOY_TEXT.toolsTitle}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{DEPLOY_TEXT.toolsHint}</p>
      {names.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{DEPLOY_TEXT.toolsNone}</p>
      ) : (
        <fetcher.Form method="post" className="mt-3">
          <Enhanced />
          <input type="hidden" name="intent" value="tools" />
          <input type="hidden" name="deployment" value={deployment.id} />
          <p className="text-xs text-slate-600 dark:text-slate-400" aria-live="polite">
            {DEPLOY_TEXT.toolsCount(names.filter((n) => !hidden.has(n)).length, names.length)}
          </p>
          <ul className="mt-2 grid gap-1 sm:grid-cols-2">
            {names.map((n) => (
              <li key={n}>
                <label className="flex cursor-pointer items-center gap-2 rounded px-1 py-0.5 text-sm hover:bg-slate-100 dark:hover:bg-slate-800">
                  <input type="hidden" name="tool" value={n} />
                  <input
                    type="checkbox"
                    name="show"
                    value={n}
                    checked={!hidden.has(n)}
                    onChange={() => toggle(n)}
                    disabled={busy}
                    className="h-4 w-4 accent-indigo-600"
                  />
                  <span className={`font-mono ${hidden.has(n) ? "text-slate-600 line-through dark:text-slate-400" : ""}`}>{n}</span>
                </label>
              </li>
            ))}
          </ul>
          <div className="mt-3 flex items-center gap-3">
            <Button type="submit" size="sm" disabled={(hydrated && !changed) || busy}>
              {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
              {busy ? DEPLOY_TEXT.toolsSaving : DEPLOY_TEXT.toolsSave}
            </Button>
          </div>
          {message && (
            <div className="mt-2">
              <Alert kind={message.kind === "ok" ? "success" : "error"}>{message.text}</Alert>
            </div>
          )}
        </fetcher.Form>
      )}
    </section>
  );
}
