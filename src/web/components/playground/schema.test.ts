import { describe, expect, it } from "vitest";
import { PLAYGROUND_TEXT } from "./text";
import {
  buildForm,
  collect,
  initialValue,
  MAX_DEPTH,
  MAX_FIELDS,
  parseRaw,
  promptForm,
  toValue,
  type Field,
  type ObjectField,
} from "./schema";

function form(schema: unknown): ObjectField {
  const f = buildForm(schema);
  if (!f.ok) throw new Error(f.why);
  return f.root;
}
const field = (root: ObjectField, key: string): Field => root.fields.find((f) => f.key === key)!;

describe("a tool's input schema as a form", () => {
  const schema = {
    type: "object",
    properties: {
      message: { type: "string", description: "What to echo" },
      email: { type: "string", format: "email" },
      count: { type: "integer", default: 3, minimum: 1, maximum: 10 },
      ratio: { type: "number" },
      loud: { type: "boolean", default: true },
      quiet: { type: "boolean" },
      colour: { enum: ["red", "green"], default: "green" },
      tags: { type: "array", items: { type: "string" } },
      point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
      choice: { oneOf: [{ type: "string" }, { type: "number" }] },
      maybe: { anyOf: [{ type: "integer" }, { type: "null" }] },
    },
    required: ["message", "count"],
  };
  const root = form(schema);

  it("makes one field per kind, with labels, help text and required marks", () => {
    expect(root.fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["message", "string", true],
      ["email", "string", false],
      ["count", "integer", true],
      ["ratio", "number", false],
      ["loud", "boolean", false],
      ["quiet", "boolean", false],
      ["colour", "enum", false],
      ["tags", "array", false],
      ["point", "object", false],
      ["choice", "json", false],
      ["maybe", "integer", false],
    ]);
    expect(field(root, "message")).toMatchObject({ description: "What to echo", long: true });
    expect(field(root, "email")).toMatchObject({ inputType: "email", long: false });
    expect(field(root, "choice")).toMatchObject({ why: "uses oneOf" });
  });

  it("prefills defaults", () => {
    expect(initialValue(root)).toMatchObject({
      message: "",
      count: "3",
      loud: true,
      quiet: undefined,
      colour: "1",
      tags: [],
      point: { x: "", y: "" },
    });
  });

  it("turns the values into arguments, coercing numbers and leaving out what is empty", () => {
    const v = { ...(initialValue(root) as object), message: "hi", ratio: " 0.5 ", tags: ["a", "b"], choice: '"x"', maybe: "7" };
    expect(collect(root, v)).toEqual({
      args: { message: "hi", count: 3, ratio: 0.5, loud: true, colour: "green", tags: ["a", "b"], choice: "x", maybe: 7 },
      errors: {},
    });
  });

  it("names each wrong or missing field", () => {
    const v = { ...(initialValue(root) as object), count: "2.5", ratio: "abc", point: { x: "1", y: "" }, choice: "{oops" };
    const { errors } = collect(root, v);
    expect(errors.message).toBe("Required");
    expect(errors.count).toBe("Enter a whole number");
    expect(errors.ratio).toBe("Enter a number");
    expect(errors["point.y"]).toBe("Required");
    expect(errors.choice).toMatch(/^Not valid JSON/);
    expect(collect(root, { ...(initialValue(root) as object), message: "m", count: "11" }).errors).toEqual({ count: "At most 10" });
    expect(collect(root, { ...(initialValue(root) as object), message: "m", count: "0" }).errors).toEqual({ count: "At least 1" });
  });

  it("leaves out an optional object left empty", () => {
    const v = { ...(initialValue(root) as object), message: "m" };
    expect(collect(root, v).args).not.toHaveProperty("point");
  });

  it("nests arrays of objects and checks their items", () => {
    const r = form({
      type: "object",
      properties: {
        rows: { type: "array", minItems: 1, items: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } },
      },
      required: ["rows"],
    });
    const rows = field(r, "rows");
    expect(rows).toMatchObject({ kind: "array", item: { kind: "object" } });
    expect(collect(r, { rows: [] }).errors).toEqual({ rows: "At least 1 item" });
    expect(collect(r, { rows: [{ n: "4" }, { n: "" }] })).toEqual({ args: { rows: [{ n: 4 }, {}] }, errors: { "rows[1].n": "Required" } });
    expect(toValue(r, { rows: [{ n: 5 }] })).toEqual({ rows: [{ n: "5" }] });
  });

  it("keeps a property named __proto__ as an argument", () => {
    const r = form({ type: "object", properties: { ["__proto__"]: { type: "string" } } });
    const v = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    expect(JSON.stringify(collect(r, v).args)).toBe('{"__proto__":"x"}');
  });

  it("falls back to raw JSON where the form cannot help", () => {
    expect(buildForm(undefined)).toMatchObject({ ok: false });
    expect(buildForm({ type: "string" })).toEqual({ ok: false, why: "The input is not an object." });
    expect(buildForm({ $ref: "#/defs/x" })).toEqual({ ok: false, why: "uses $ref" });
    expect(
      field(form({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }), "m"),
    ).toMatchObject({ kind: "json" });
    expect(field(form({ type: "object", properties: { a: {} } }), "a")).toMatchObject({ kind: "json", why: "takes any value" });
  });

  it("bounds hostile schemas: deep nesting becomes JSON, too many fields falls back", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } };
    const started = performance.now();
    let f: Field = form(deep);
    let depth = 0;
    while (f.kind === "object") {
      f = f.fields[0]!;
      depth++;
    }
    expect(f.kind).toBe("json");
    expect(depth).toBe(MAX_DEPTH);
    const wide = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`p${i}`, { type: "string" }])),
    };
    expect(buildForm(wide)).toEqual({ ok: false, why: `The input has more than ${MAX_FIELDS} fields.` });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("raw JSON and prompt arguments", () => {
  it("parses raw arguments or says why not", () => {
    expect(parseRaw('{"a": 1}')).toEqual({ args: { a: 1 } });
    expect(parseRaw("")).toEqual({ args: {} });
    expect(parseRaw("[1]")).toEqual({ error: PLAYGROUND_TEXT.notAnObject });
    expect(parseRaw("{a:")).toMatchObject({ error: expect.stringMatching(/^Not valid JSON/) as string });
  });

  it("makes a prompt's arguments string fields, required ones checked", () => {
    const f = promptForm([{ name: "city", description: "Name of the city", required: true }, { name: "state" }]);
    expect(f.fields.map((x) => [x.key, x.kind, x.required])).toEqual([
      ["city", "string", true],
      ["state", "string", false],
    ]);
    expect(collect(f, initialValue(f)).errors).toEqual({ city: PLAYGROUND_TEXT.required });
    expect(collect(f, { city: "Paris", state: "" }).args).toEqual({ city: "Paris" });
  });
});

describe("parameters named like Object's own properties", () => {
  // Parsed from JSON, as a server sends it: a literal `__proto__:` would set the prototype instead.
  const names = ["constructor", "toString", "__proto__"];
  const schema = JSON.parse(
    '{"type":"object","properties":{"constructor":{"type":"string"},"toString":{"type":"string"},"__proto__":{"type":"string"},"hasOwnProperty":{"type":"integer"}},"required":["constructor","toString","__proto__"]}',
  ) as unknown;
  const root = form(schema);

  it("starts empty, not with a function's source", () => {
    expect(root.fields.map((f) => f.key)).toEqual([...names, "hasOwnProperty"]);
    const v = initialValue(root) as Record<string, unknown>;
    for (const n of names) expect(Object.getOwnPropertyDescriptor(v, n)?.value).toBe("");
    expect(Object.getOwnPropertyDescriptor(v, "hasOwnProperty")?.value).toBe("");
    const p = promptForm([{ name: "constructor", required: true }, { name: "toString" }]);
    expect(Object.values(initialValue(p) as object)).toEqual(["", ""]);
  });

  it("reports each as missing, and sends what was typed as arguments", () => {
    const empty = collect(root, initialValue(root));
    expect(Object.keys(empty.errors).sort()).toEqual([...names].sort());
    for (const n of names) expect(empty.errors[n]).toBe(PLAYGROUND_TEXT.required);
    expect(empty.args).toEqual({});

    const v = JSON.parse('{"constructor":"a","toString":"b","__proto__":"c","hasOwnProperty":"4"}') as Record<string, string>;
    const { args, errors } = collect(root, v);
    expect(Object.keys(errors)).toEqual([]);
    expect(JSON.stringify(args)).toBe('{"constructor":"a","toString":"b","__proto__":"c","hasOwnProperty":4}');
    // Raw JSON that names them round-trips into the form.
    expect(JSON.stringify(toValue(root, v))).toBe('{"constructor":"a","toString":"b","__proto__":"c","hasOwnProperty":"4"}');
  });
});
