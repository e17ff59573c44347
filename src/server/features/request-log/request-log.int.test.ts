import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, signedInUser, type Client, type TestApp } from "~support/app.js";
import { addCatalogEntry } from "~support/deployments.js";
import { startRunningFixture, type RunningFixture } from "~support/deployments-app.js";
import { rawSession, sdkClient, textOf } from "~support/gateway.js";
import { DEPLOY_TEXT, type DeploymentView } from "~/shared/deployments.js";
import type { RequestLogPage, ToolStat } from "~/shared/request-log.js";
import { until as poll } from "~support/wait.js";

// The request log and the tool figures end to end: real calls through the gateway to the
// fixture server (deployed from a git repository), the writer on its timer, and the API.

const SECRET = "sk-live-9f8e7d6c5b4a39281706SECRET";

let f: RunningFixture;
let t: TestApp;
let owner: Client & { id: string };
let stranger: Client & { id: string };
let deployment: DeploymentView;

const requests = async (c: Client, query = "") => c.get(`/api/deployments/${deployment.id}/requests${query}`);
const page = async (query = "") => (await (await requests(owner, query)).json()) as RequestLogPage;

const until = <T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000) => poll(what, ok, ms, 50);

beforeAll(async () => {
  f = await startRunningFixture({ USAGE_FLUSH_MS: "50" });
  ({ t, owner, deployment } = f);
  const key = f.key;
  stranger = await signedInUser(t, "stranger@example.com");
  const sdk = await sdkClient(deployment.url, key);
  expect(textOf(await sdk.callTool({ name: "echo", arguments: { message: SECRET } }))).toBe(SECRET);
  await sdk.callTool({ name: "echo", arguments: { message: "hello" } });
  // A tool result with isError: the fixture refuses a string where it wants a number.
  await sdk.callTool({ name: "add", arguments: { a: SECRET, b: 1 } });
  await sdk.getPrompt({ name: "greet", arguments: { name: SECRET } });
  await sdk.readResource({ uri: "fixture://readme" });
  await sdk.close();
  // A JSON-RPC error, and a tool name the server never listed.
  const raw = await rawSession(deployment.url, key);
  expect((await raw.call(5, "no/such-method")).json()).toMatchObject({ error: { code: -32601 } });
  await raw.call(6, "tools/call", { name: "made-up-tool", arguments: { token: SECRET } });
  await until(
    () => page(),
    (p) => p.requests.filter((x) => x.method === "tools/call").length >= 4,
  );
}, 120_000);
afterAll(() => f?.close());

describe("the owner's request log", () => {
  it("shows each call: client, method, name, duration, outcome with error code, bytes", async () => {
    const { requests: rows, methods } = await page();
    const calls = rows.filter((r) => r.method === "tools/call");
    expect(calls.map((r) => [r.name, r.outcome])).toEqual([
      ["made-up-tool", "error"],
      ["add", "tool_error"],
      ["echo", "ok"],
      ["echo", "ok"],
    ]);
    const echo = calls[3]!;
    expect(echo).toMatchObject({ client_name: "switchboard-test", client_version: "1.0.0", error_code: null });
    expect(echo.bytes_in).toBeGreaterThan(SECRET.length);
    expect(echo.bytes_out).toBeGreaterThan(SECRET.length);
    expect(echo.duration_ms).toBeGreaterThan(0);
    expect(rows.find((r) => r.method === "no/such-method")).toMatchObject({ outcome: "error", error_code: -32601, client_name: "raw" });
    expect(rows.find((r) => r.method === "prompts/get")?.name).toBe("greet");
    expect(rows.find((r) => r.method === "resources/read")?.name).toBe("fixture://readme");
    expect(methods).toEqual(expect.arrayContaining(["initialize", "no/such-method", "prompts/get", "resources/read", "tools/call"]));
    const times = rows.map((r) => Date.parse(r.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("never stores arguments or results: no column of any row holds the secret", async () => {
    const log = await t.db.database.db.execute<{ row: string }>(sql`select row_to_json(r)::text as row from request_log r`);
    expect(log.rows.length).toBeGreaterThanOrEqual(8);
    for (const { row } of log.rows) expect(row).not.toContain("9f8e7d6c5b4a");
    const stats = await t.db.database.db.execute<{ row: string }>(sql`select row_to_json(s)::text as row from tool_stats s`);
    for (const { row } of stats.rows) expect(row).not.toContain("9f8e7d6c5b4a");
    expect(await (await requests(owner)).text()).not.toContain("9f8e7d6c5b4a");
  });

  it("filters by method, name and outcome, and keeps to the limit, newest first", async () => {
    const byMethod = await page("?method=tools%2Fcall");
    expect(byMethod.requests).toHaveLength(4);
    expect((await page("?name=ECH")).requests.map((r) => r.name)).toEqual(["echo", "echo"]);
    expect((await page("?outcome=tool_error")).requests.map((r) => r.name)).toEqual(["add"]);
    expect((await page("?method=tools%2Fcall&outcome=ok&name=")).requests).toHaveLength(2);
    expect((await page("?name=%25")).requests).toHaveLength(0);
    const one = await page("?limit=1");
    expect(one.requests).toHaveLength(1);
    expect(one.requests[0]).toEqual((await page()).requests[0]);
    expect((await page("?limit=500")).requests.length).toBeGreaterThanOrEqual(8);
  });

  it("answers 400, not 500, to a bad limit or filter", async () => {
    for (const q of [
      "?limit=0",
      "?limit=501",
      "?limit=abc",
      "?limit=1.5",
      "?outcome=bogus",
      `?method=${"m".repeat(101)}`,
      `?name=${"n".repeat(201)}`,
      "?name=a%00b",
      "?method=%00",
    ]) {
      const r = await requests(owner, q);
      expect(r.status, q).toBe(400);
      expect(((await r.json()) as { code: string }).code).toBe("validation_failed");
    }
  });

  it("is the owner's alone: others get the deployment routes' 404, signed out 401", async () => {
    const logs = await stranger.get(`/api/deployments/${deployment.id}/logs`);
    expect(logs.status).toBe(404);
    for (const [c, id] of [
      [stranger, deployment.id],
      [owner, "00000000-0000-4000-8000-000000000000"],
      [owner, "not-a-deployment"],
    ] as const) {
      const r = await c.get(`/api/deployments/${id}/requests`);
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: DEPLOY_TEXT.notFound, code: "not_found" });
    }
    const anonymous = await client(t.app).get(`/api/deployments/${deployment.id}/requests`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: DEPLOY_TEXT.mustLogin, code: "unauthorized" });
  });
});

describe("public tool figures", () => {
  const stats = async (path: string, as: { get: (p: string) => Promise<Response> } = client(t.app)) => {
    const r = await as.get(path);
    return {
      status: r.status,
      text: await r.clone().text(),
      tools: r.status === 200 ? ((await r.json()) as { tools: ToolStat[] }).tools : [],
    };
  };

  it("show calls, error rate and latency per listed tool, and nothing about who called; an owned server's only to its owner", async () => {
    const s = await until(
      () => stats("/api/servers/owner/fixture/tool-stats", owner),
      (x) => x.tools.length >= 2,
    );
    expect(s.status).toBe(200);
    const echo = s.tools.find((x) => x.name === "echo")!;
    expect(echo).toMatchObject({ calls: 2, error_rate: 0 });
    expect(echo.p50_ms).toBeGreaterThan(0);
    expect(echo.p95_ms).toBeGreaterThanOrEqual(echo.p50_ms!);
    expect(s.tools.find((x) => x.name === "add")).toMatchObject({ calls: 1, error_rate: 1 });
    // Made-up names a client sent are not the server's tools, and are not shown.
    expect(s.tools.map((x) => x.name)).not.toContain("made-up-tool");
    for (const x of [owner.id, deployment.id, deployment.proxy_id, "owner@example.com", "switchboard-test", "9f8e7d6c5b4a"])
      expect(s.text).not.toContain(x);
    for (const tool of s.tools) expect(Object.keys(tool).sort()).toEqual(["calls", "error_rate", "name", "p50_ms", "p95_ms"]);
    // Only its owner can deploy an owned server: its figures would be one person's usage, so nobody else sees them.
    expect(await stats("/api/servers/owner/fixture/tool-stats")).toMatchObject({ status: 200, tools: [] });
    expect(await stats("/api/servers/owner/fixture/tool-stats", await signedInUser(t, "curious@example.com"))).toMatchObject({
      status: 200,
      tools: [],
    });
  });

  it("answer an empty list for a catalogue entry without calls and 404 for unknown servers", async () => {
    await addCatalogEntry(t, "quiet-entry", "npx -y quiet-entry");
    expect(await stats("/api/mcp-servers/quiet-entry/tool-stats")).toMatchObject({ status: 200, tools: [] });
    expect((await stats("/api/mcp-servers/no-such-entry/tool-stats")).status).toBe(404);
    expect((await stats("/api/servers/nobody/nothing/tool-stats")).status).toBe(404);
  });
});
