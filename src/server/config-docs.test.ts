import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { docsPath, readSettings, renderConfigDocs, schemaPath } from "../../scripts/config-docs.js";
import { schema } from "./config-schema.js";

// docs/configuration.md is generated from the schema (scripts/config-docs.ts): it must say what the
// schema says, and every setting must say what it does.

describe("docs/configuration.md", () => {
  it("is what npm run docs:config writes from config-schema.ts", () => {
    const written = readFileSync(docsPath, "utf8");
    expect(written === renderConfigDocs(), "docs/configuration.md is out of date: run npm run docs:config").toBe(true);
  });

  it("describes every setting of the schema", () => {
    const documented = readSettings(readFileSync(schemaPath, "utf8")).flatMap((s) => s.settings.map((v) => v.name));
    expect(documented.sort()).toEqual(Object.keys(schema.shape).sort());
  });
});
