import type { ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { useMemo, useState } from "react";
import { CallView } from "./CallView";
import { label } from "./limits";
import type { Session } from "./mcp-client";
import { Picker, RunButtons, Runner } from "./parts";
import { resourceView, type Blocks } from "./result-model";
import { BlocksView } from "./ResultView";
import { collect, initialValue, type Errors, type ObjectField, type Value } from "./schema";
import { SchemaForm } from "./SchemaForm";
import { PLAYGROUND_TEXT } from "./text";
import { useCall } from "./use-call";

// Resources and resource templates: read one as listed, or fill a template's {variables} first.

const T = "template:";
const R = "resource:";

export function ResourcesTab({ session }: { session: Session }) {
  const items = [
    ...session.resources.map((r) => ({
      id: R + r.uri,
      title: label(r.title) || label(r.name),
      subtitle: label(r.name) || label(r.uri),
      description: label(r.uri, 500),
    })),
    ...session.templates.map((t) => ({
      id: T + t.uriTemplate,
      title: label(t.title) || label(t.name),
      subtitle: PLAYGROUND_TEXT.template(label(t.name)),
      description: label(t.uriTemplate, 500),
    })),
  ];
  const [id, setId] = useState(items[0]?.id ?? "");
  if (items.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">{PLAYGROUND_TEXT.noResources}</p>;
  const template = id.startsWith(T) ? session.templates.find((t) => T + t.uriTemplate === id) : undefined;
  const resource = id.startsWith(R) ? session.resources.find((r) => R + r.uri === id) : undefined;
  return (
    <Picker what="resources" items={items} selected={id} onSelect={setId}>
      {resource && (
        <Reader key={id} session={session} title={label(resource.name)} description={label(resource.description)} uri={resource.uri} />
      )}
      {template && <TemplateReader key={id} session={session} template={template} />}
    </Picker>
  );
}

function Reader({
  session,
  title,
  description,
  uri,
  form,
}: {
  session: Session;
  title: string;
  description: string;
  uri: string | ((args: Record<string, string>) => string);
  form?: ObjectField;
}) {
  const call = useCall<Blocks>();
  const [value, setValue] = useState<Value>(() => (form ? initialValue(form) : {}));
  const [errors, setErrors] = useState<Errors>({});
  const [problem, setProblem] = useState<string | null>(null);

  const onRead = () => {
    if (call.state.running) return;
    let target: string;
    if (typeof uri === "string") target = uri;
    else {
      const r = collect(form!, value);
      setErrors(r.errors);
      if (Object.keys(r.errors).length) return setProblem(PLAYGROUND_TEXT.fillVariables);
      try {
        target = uri(r.args as Record<string, string>);
      } catch (e) {
        return setProblem((e as Error).message);
      }
    }
    setProblem(null);
    void call.run((o) => session.request(o, (client, options) => client.readResource({ uri: target }, options)).then(resourceView));
  };

  return (
    <Runner onRun={onRead}>
      <div>
        <h3 className="font-mono text-base font-semibold">{title}</h3>
        <p className="mt-1 break-all font-mono text-xs text-slate-600 dark:text-slate-400">
          {typeof uri === "string" ? label(uri, 4096) : null}
        </p>
        {description && <p className="mt-1 whitespace-pre-line text-sm text-slate-600 dark:text-slate-400">{description}</p>}
      </div>
      {form && <SchemaForm root={form} value={value} onChange={setValue} errors={errors} prefix="pg-template" />}
      <RunButtons label={PLAYGROUND_TEXT.read} running={call.state.running} onRun={onRead} onCancel={call.cancel} problem={problem} />
      <CallView state={call.state}>{(v) => <BlocksView v={v} />}</CallView>
    </Runner>
  );
}

function TemplateReader({ session, template }: { session: Session; template: ResourceTemplate }) {
  const form = useMemo<ObjectField>(
    () => ({
      key: "",
      label: "",
      description: "",
      required: true,
      kind: "object",
      fields: session
        .variables(template.uriTemplate)
        .map((v) => ({ key: v, label: v, description: "", required: true, kind: "string", long: false, inputType: "text" })),
    }),
    [session, template],
  );
  return (
    <div className="space-y-1">
      <p className="break-all font-mono text-xs text-slate-600 dark:text-slate-400">{label(template.uriTemplate, 4096)}</p>
      <Reader
        session={session}
        title={label(template.name)}
        description={label(template.description)}
        uri={(args) => session.expand(template.uriTemplate, args)}
        form={form}
      />
    </div>
  );
}
