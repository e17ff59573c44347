import type { Prompt } from "@modelcontextprotocol/sdk/types.js";
import { useMemo, useState } from "react";
import { CallView } from "./CallView";
import { label } from "./limits";
import type { Session } from "./mcp-client";
import { Picker, RunButtons, Runner } from "./parts";
import { promptView, type PromptView } from "./result-model";
import { PromptResultView } from "./ResultView";
import { collect, initialValue, promptForm, type Errors, type Value } from "./schema";
import { SchemaForm } from "./SchemaForm";
import { PLAYGROUND_TEXT as T } from "./text";
import { useCall } from "./use-call";

export function PromptsTab({ session }: { session: Session }) {
  const [name, setName] = useState(session.prompts[0]?.name ?? "");
  const prompt = session.prompts.find((p) => p.name === name);
  if (session.prompts.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">{T.noPrompts}</p>;
  return (
    <Picker
      what="prompts"
      items={session.prompts.map((p) => ({
        id: p.name,
        title: label(p.title) || label(p.name),
        subtitle: label(p.name),
        description: label(p.description),
      }))}
      selected={name}
      onSelect={setName}
    >
      {prompt && <PromptRunner key={prompt.name} prompt={prompt} session={session} />}
    </Picker>
  );
}

function PromptRunner({ prompt, session }: { prompt: Prompt; session: Session }) {
  const form = useMemo(() => promptForm(prompt.arguments), [prompt]);
  const [value, setValue] = useState<Value>(() => initialValue(form));
  const [errors, setErrors] = useState<Errors>({});
  const call = useCall<PromptView>();

  const onGet = () => {
    if (call.state.running) return;
    const r = collect(form, value);
    setErrors(r.errors);
    if (Object.keys(r.errors).length) return;
    void call.run((o) =>
      session
        .request(o, (client, options) => client.getPrompt({ name: prompt.name, arguments: r.args as Record<string, string> }, options))
        .then(promptView),
    );
  };

  return (
    <Runner onRun={onGet}>
      <div>
        <h3 className="font-mono text-base font-semibold">{label(prompt.name)}</h3>
        {prompt.description && (
          <p className="mt-1 whitespace-pre-line text-sm text-slate-600 dark:text-slate-400">{label(prompt.description)}</p>
        )}
      </div>
      <p className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{T.arguments}</p>
      <SchemaForm root={form} value={value} onChange={setValue} errors={errors} prefix={`pg-prompt-${prompt.name}`} />
      <RunButtons
        label={T.getPrompt}
        running={call.state.running}
        onRun={onGet}
        onCancel={call.cancel}
        problem={Object.keys(errors).length ? T.fillRequired : null}
      />
      <CallView state={call.state}>{(v) => <PromptResultView v={v} />}</CallView>
    </Runner>
  );
}
