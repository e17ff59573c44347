// Writes docs/configuration.md from src/server/config-schema.ts: every setting with its default and
// what it does, so the page cannot drift from the schema (src/server/config-docs.test.ts fails when
// docs/configuration.md differs from what this renders). Run it with `npm run docs:config`.
//
// What it reads from the schema's source, besides the schema itself:
// - the `/** ... */` comment above a key is that setting's description (markdown; a key without one
//   is an error). An `@default <text>` line in it is shown as the default, for a default computed
//   elsewhere (config.ts, the runtime); otherwise the default is what the schema gives for an unset
//   variable (none, an empty string or an empty list: "(empty)").
// - a `//` comment above a key starts a section: its title up to the first ": ", then the section's
//   introduction.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { schema } from "../src/server/config-schema.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const schemaPath = path.join(root, "src/server/config-schema.ts");
export const docsPath = path.join(root, "docs/configuration.md");

export interface Setting {
  name: string;
  default: string;
  description: string;
}
export interface Section {
  title: string;
  intro: string;
  settings: Setting[];
}

/** The schema's keys in source order, with their comments, grouped by the `//` section comments. */
export function readSettings(source: string): Section[] {
  const file = ts.createSourceFile("config-schema.ts", source, ts.ScriptTarget.Latest, true);
  let object: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      node.name.getText(file) === "schema" &&
      node.initializer &&
      ts.isCallExpression(node.initializer)
    ) {
      const arg = node.initializer.arguments[0];
      if (arg && ts.isObjectLiteralExpression(arg)) object = arg;
    }
    if (!object) ts.forEachChild(node, visit);
  };
  visit(file);
  if (!object) throw new Error("config-schema.ts: no `export const schema = z.object({ ... })`");

  const sections: Section[] = [{ title: "General", intro: "", settings: [] }];
  const shape = schema.shape as Record<string, z4Like>;
  for (const prop of object.properties) {
    if (!ts.isPropertyAssignment(prop)) continue;
    const name = prop.name.getText(file);
    const comments = ts.getLeadingCommentRanges(source, prop.getFullStart()) ?? [];
    let doc: string | undefined;
    for (const c of comments) {
      const text = source.slice(c.pos, c.end);
      if (text.startsWith("/**")) {
        doc = text
          .replace(/^\/\*\*|\*\/$/g, "")
          .split("\n")
          .map((l) => l.replace(/^\s*\* ?/, "").trim())
          .join("\n")
          .trim();
      } else if (text.startsWith("//")) {
        const line = text.replace(/^\/\/\s?/, "").trim();
        const last = sections.at(-1)!;
        // Consecutive // lines are one comment: the first begins a section, the rest continue its intro.
        if (!isFirstOfComment(source, c.pos)) {
          last.intro = `${last.intro} ${line}`.trim();
        } else {
          const colon = line.indexOf(": ");
          sections.push(
            colon < 0
              ? { title: line, intro: "", settings: [] }
              : { title: line.slice(0, colon), intro: line.slice(colon + 2), settings: [] },
          );
        }
      }
    }
    if (!doc) throw new Error(`config-schema.ts: ${name} has no /** description */`);
    const tag = /^@default\s+(.*)$/m.exec(doc);
    const description = doc
      .replace(/^@default.*$/m, "")
      .split(/\s*\n\s*/)
      .filter(Boolean)
      .join(" ");
    const field = shape[name];
    if (!field) throw new Error(`config-schema.ts: ${name} is not in the schema`);
    sections.at(-1)!.settings.push({ name, description, default: tag ? tag[1]!.trim() : defaultOf(name, field) });
  }
  return sections.filter((s) => s.settings.length > 0);
}

type z4Like = { safeParse(v: unknown): { success: boolean; data?: unknown } };

/** What the schema makes of an unset variable, as the docs show it. */
function defaultOf(name: string, field: z4Like): string {
  const r = field.safeParse(undefined);
  if (!r.success) throw new Error(`config-schema.ts: ${name} has no default; give its description an @default line`);
  const v = r.data;
  if (v === undefined || v === "" || (Array.isArray(v) && v.length === 0)) return "*(empty)*";
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return `\`${v}\``;
  throw new Error(`config-schema.ts: ${name}'s default is not a plain value; give its description an @default line`);
}

/** Whether the // comment at pos is the first line of its comment (the line before it is not a // comment). */
function isFirstOfComment(source: string, pos: number): boolean {
  const lineStart = source.lastIndexOf("\n", pos - 1);
  const prevStart = source.lastIndexOf("\n", lineStart - 1);
  return !source
    .slice(prevStart + 1, lineStart)
    .trim()
    .startsWith("//");
}

const cell = (s: string) => links(s).replace(/\|/g, "\\|");
/** docs/x.md#y in the schema's comments becomes a link relative to docs/. */
const links = (s: string) => s.replace(/(?<![\w/`[(])docs\/([\w-]+\.md(?:#[\w-]+)?)/g, "[docs/$1]($1)");

/** docs/configuration.md as the schema describes it. */
export function renderConfigDocs(source = readFileSync(schemaPath, "utf8")): string {
  const sections = readSettings(source);
  const out = [
    "# Configuration",
    "",
    "<!-- Generated from src/server/config-schema.ts by `npm run docs:config`: edit the schema's comments, not this file. -->",
    "",
    "Every setting is an environment variable, read once at start-up and validated by one zod schema",
    "(`src/server/config-schema.ts`; `src/server/config.ts` loads it and checks what spans several variables).",
    "A bad value stops the app with a message naming it (`PORT=abc npm start`). An unset or blank variable",
    "takes its default. `.env.example` lists them all with examples.",
    "",
    ...sections.map((s) => s.title.replace(/ \(docs\/[^)]+\)$/, "")).map((t) => `- [${t}](#${anchor(t)})`),
    "",
  ];
  for (const s of sections) {
    const m = /^(.*) \((docs\/[^)]+)\)$/.exec(s.title);
    const [title, see] = m ? [m[1]!, ` See docs/${m[2]!.slice(5)}.`] : [s.title, ""];
    out.push(`## ${title}`, "");
    const intro = `${s.intro ? s.intro[0]!.toUpperCase() + s.intro.slice(1) : ""}${see}`.trim();
    if (intro) out.push(links(intro), "");
    out.push("| Variable | Default | What it does |", "|---|---|---|");
    for (const v of s.settings) out.push(`| \`${v.name}\` | ${cell(v.default)} | ${cell(v.description)} |`);
    out.push("");
  }
  return out.join("\n");
}

/** GitHub's heading anchor. */
function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(docsPath, renderConfigDocs());
  console.log(`wrote ${path.relative(process.cwd(), docsPath)}`);
}
