import { describe, expect, it } from "vitest";
import { submissionRequest, SUBMIT_TEXT } from "../../shared/catalog";
import { DEPLOY_TEXT, deployRequest } from "../../shared/deployments";
import { serverInput, SERVER_FORM_TEXT } from "../../shared/publishers";
import { formMessage } from "./validation";

const base = {
  qualifiedName: "ada/tides",
  displayName: "Tides",
  description: "Tide tables",
  connections: [{ type: "ws", url: "wss://x.example" }],
};
const serverMessage = (body: object) => {
  const r = serverInput.safeParse(body);
  return r.success
    ? null
    : formMessage(r.error, [
        SERVER_FORM_TEXT.required,
        SERVER_FORM_TEXT.qualifiedNameFormat,
        SERVER_FORM_TEXT.connectionRequired,
        SERVER_FORM_TEXT.configSchemaJson,
      ]);
};

describe("formMessage", () => {
  it("keeps the server form's order of checks", () => {
    expect(serverMessage(base)).toBeNull();
    expect(serverMessage({ ...base, qualifiedName: "", displayName: "" })).toBe(SERVER_FORM_TEXT.required);
    expect(serverMessage({ ...base, qualifiedName: "no-slash", version: "x" })).toBe(SERVER_FORM_TEXT.qualifiedNameFormat);
    expect(serverMessage({ ...base, version: "x", connections: [{ type: "ws", url: " " }] })).toBe(SERVER_FORM_TEXT.connectionRequired);
    expect(serverMessage({ ...base, connections: [{ type: "ws", url: "wss://x.example", configSchema: "{ not json" }] })).toBe(
      SERVER_FORM_TEXT.configSchemaJson,
    );
    expect(serverMessage({ ...base, connections: [{ type: "ws", url: "wss://x.example", configSchema: [1] }] })).toBe(
      SERVER_FORM_TEXT.configSchemaJson,
    );
    // Past the form's own checks: the API's first message.
    expect(serverMessage({ ...base, version: "x" })).toBe(SERVER_FORM_TEXT.version);
    expect(serverMessage({ ...base, connections: [{ type: "ws", url: "https://x.example" }] })).toBe(SERVER_FORM_TEXT.connectionUrl);
  });

  it("puts a missing required field first on the submission form", () => {
    const ok = {
      name: "Weather",
      description: "Forecasts",
      category: "Featured",
      type: "Community",
      source: "user_submitted",
      tags: "a, b",
    };
    expect(submissionRequest.safeParse(ok).success).toBe(true);
    const bad = submissionRequest.safeParse({ ...ok, tags: " , ", url: "ftp://x" });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(formMessage(bad.error, [SUBMIT_TEXT.requiredFields])).toBe(SUBMIT_TEXT.requiredFields);
    const url = submissionRequest.safeParse({ ...ok, url: "ftp://x" });
    if (!url.success) expect(formMessage(url.error, [SUBMIT_TEXT.requiredFields])).toBe(SUBMIT_TEXT.urlInvalid("Server URL"));
  });

  it("names missing deploy keys before the body's own checks", () => {
    const schema = deployRequest([{ key: "Tide key", env_var: "TIDE_KEY" }]);
    const message = (env: Record<string, string>) => {
      const r = schema.safeParse({ repositoryUrl: null, npx_command: "npx tides", env });
      return r.success ? null : formMessage(r.error);
    };
    expect(message({ TIDE_KEY: "k" })).toBeNull();
    expect(message({ TIDE_KEY: " ", PATH: "x" })).toBe(DEPLOY_TEXT.missingKeys(["Tide key"]));
    expect(message({ TIDE_KEY: "k", PATH: "x" })).toBe(DEPLOY_TEXT.reservedEnv("PATH"));
  });
});
