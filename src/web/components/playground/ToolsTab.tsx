import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { Braces, ListTree } from "~/web/components/icons";
import { useMemo, useState } from "react";
import { inputClass } from "../ui";
import { CallView } from "./CallView";
import { label } from "./limits";
import type { LogEntry, Session } from "./mcp-client";
import { Picker, RunButtons, Runner } from "./parts";
import { toolView, type ToolView } from "./result-model";
import { ToolResultView } from "./ResultView";
import { buildForm, collect, initialValue, parseRaw, toValue, type Errors, type Value } from "./schema";
import { SchemaForm } from "./SchemaForm";
import { PLAYGROUND_TEXT as T } from "./text";
import { useCall } from "./use-call";

interface Props {
  session: Session;
  logs: LogEntry[];
  clearLogs: () => void;
}

export function ToolsTab({ session, logs, clearLogs }: Props) {
  const [name, setName] = useState(session.tools[0]?.name ?? "");
  const tool = session.tools.find((t) => t.name === name);
  if (session.tools.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">{T.noTools}</p>;
  return (
    <Picker
      what="tools"
      items={session.tools.map((t) => ({
        id: t.name,
        title: label(t.title) || label(t.name),
        subtitle: label(t.name),
        description: label(t.description),
      }))}
      selected={name}
      onSelect={setName}
    >
      {tool && <ToolRunner key={tool.name} tool={tool} session={session} logs={logs} clearLogs={clearLogs} />}
    </Picker>
  );
}

function ToolRunner({ tool, session, logs, clearLogs }: { tool: Tool } & Props) {
  const form = useMemo(() => buildForm(tool.inputSchema), [tool]);
  const [raw, setRaw] = useState(!form.ok);
  const [value, setValue] = useState<Value>(() => (form.ok ? initialValue(form.root) : {}));
  const [rawText, setRawText] = useState("{}");
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const call = useCall<ToolView>();

  const args = (): Record<string, unknown> | null => {
    const fail = (message: string) => {
      setProblem(message);
      return null;
    };
    if (raw || !form.ok) {
      const r = parseRaw(rawText);
      if ("error" in r) return fail(r.error);
      setProblem(null);
      return r.args;
    }
    const r = collect(form.root, value);
    setErrors(r.errors);
    const n = Object.keys(r.errors).length;
    if (n) return fail(T.fieldsNeedAttention(n));
    setProblem(null);
    return r.args;
  };

  const onRun = () => {
    if (call.state.running) return;
    const a = args();
    if (!a) return;
    clearLogs();
    void call.run((o) =>
      session.request(o, (client, options) => client.callTool({ name: tool.name, arguments: a }, undefined, options)).then(toolView),
    );
  };

  const toggleRaw = () => {
    if (!form.ok) return;
    if (!raw) {
      setRawText(JSON.stringify(collect(form.root, value).args, null, 2));
      setProblem(null);
      return setRaw(true);
    }
    const r = parseRaw(rawText);
    if ("error" in r) return setProblem(r.error);
    setValue(toValue(form.root, r.args));
    setProblem(null);
    setRaw(false);
  };

  const destructive = tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true;
  return (
    <Runner onRun={onRun}>
      <div>
        <h3 className="flex flex-wrap items-center gap-2 font-mono text-base font-semibold">
          {label(tool.name)}
          {tool.annotations?.readOnlyHint === true && (
            <span className="rounded bg-emerald-50 px-1.5 py-0.5 font-sans text-xs font-medium text-emerald-700 dark:bg-emerald-950/50 dark:text-emerald-300">
              {T.readOnly}
            </span>
          )}
          {destructive && (
            <span className="rounded bg-red-50 px-1.5 py-0.5 font-sans text-xs font-medium text-red-700 dark:bg-red-950/50 dark:text-red-300">
              {T.destructive}
            </span>
          )}
        </h3>
        {tool.description && (
          <p className="mt-1 whitespace-pre-line text-sm text-slate-600 dark:text-slate-400">{label(tool.description)}</p>
        )}
      </div>
      <div className="flex items-center justify-between gap-2">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{T.arguments}</p>
        {form.ok && (
          <button
            type="button"
            onClick={toggleRaw}
            aria-pressed={raw}
            className="inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium text-indigo-600 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-400 dark:hover:bg-indigo-950/50"
          >
            {raw ? <ListTree className="h-3.5 w-3.5" aria-hidden /> : <Braces className="h-3.5 w-3.5" aria-hidden />}
            {raw ? T.form : T.rawJson}
          </button>
        )}
      </div>
      {!form.ok && <p className="text-xs text-slate-600 dark:text-slate-400">{T.rawJsonOnly(form.why)}</p>}
      {raw || !form.ok ? (
        <div>
          <label htmlFor={`pg-raw-${tool.name}`} className="sr-only">
            {T.rawLabel}
          </label>
          <textarea
            id={`pg-raw-${tool.name}`}
            rows={8}
            spellCheck={false}
            className={`${inputClass} font-mono text-sm`}
            value={rawText}
            onChange={(e) => setRawText(e.target.value)}
            aria-invalid={problem ? true : undefined}
          />
        </div>
      ) : (
        <SchemaForm root={form.root} value={value} onChange={setValue} errors={errors} prefix={`pg-tool-${tool.name}`} />
      )}
      <RunButtons label={T.run} running={call.state.running} onRun={onRun} onCancel={call.cancel} problem={problem} />
      <CallView state={call.state} logs={logs}>
        {(v) => <ToolResultView v={v} />}
      </CallView>
    </Runner>
  );
}
