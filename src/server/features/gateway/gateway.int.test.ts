import { describe, expect, it } from "vitest";
import { raw, rawSession, sdkClient, textOf } from "~support/gateway.js";
import type { DeploymentView } from "~/shared/deployments.js";
import { GATEWAY_TEXT } from "./gateway.js";
import { useGatewayApp } from "./gateway-test-setup.js";

// The gateway over real HTTP on a real port, in front of a real deployed stdio server (the
// zero-dependency fixture in tests/fixtures/mcp-fixture, deployed from a git repository): both
// transports, to the official SDK client and to raw requests. Who may connect is
// gateway-access.int.test.ts, the limits gateway-limits.int.test.ts, Total Usage gateway-usage.int.test.ts.

let base: string;
let key: string;
let deployment: DeploymentView;
let url: string;
useGatewayApp((f) => ({ base, key, deployment, url } = f));

describe("Streamable HTTP through the gateway", () => {
  it("serves the deployment at the URL its panel shows, to the official SDK client", async () => {
    expect(url).toBe(`${base}/${deployment.proxy_id}/mcp`);
    const client = await sdkClient(url, key);
    expect(client.getServerVersion()?.name).toBe("mcp-fixture");
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "through the gateway" } }))).toBe("through the gateway");
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } }))).toBe("42");
    const res = await client.readResource({ uri: "fixture://readme" });
    expect((res.contents[0] as { text: string }).text).toMatch(/fixture/i);
    const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
    expect((prompt.messages[0]!.content as { text: string }).text).toBe("Hello, Ada!");
    await client.close();
  });

  it("answers a single response as application/json with a session id from initialize", async () => {
    const s = await rawSession(url, key);
    expect(s.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(s.init.result.serverInfo.name).toBe("mcp-fixture");
    const r = await s.call(7, "tools/call", { name: "echo", arguments: { message: "json" } });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.json()).toEqual({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "json" }] } });
    // A notification is accepted without a body.
    const n = await raw(url, { headers: s.headers, body: { jsonrpc: "2.0", method: "notifications/roots/list_changed" } });
    expect(n.status).toBe(202);
    expect(n.body).toBe("");
  });

  it("ends a session with DELETE; the ended session then answers 404", async () => {
    const s = await rawSession(url, key);
    const del = await raw(url, { method: "DELETE", headers: s.headers });
    expect(del.status).toBe(200);
    const after = await s.call(2, "tools/list");
    expect(after.status).toBe(404);
    expect(after.json()).toMatchObject({ error: { message: GATEWAY_TEXT.sessionNotFound } });
  });

  it("keeps 20 concurrent sessions apart even when every one uses the same request ids", async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => rawSession(url, key)));
    const results = await Promise.all(
      sessions.flatMap((s, i) =>
        Array.from({ length: 10 }, async (_, j) => {
          const r = await s.call(j + 1, "tools/call", { name: "echo", arguments: { message: `session ${i} call ${j + 1}` } });
          return { i, j, body: r.json<{ id: number; result: { content: { text: string }[] } }>() };
        }),
      ),
    );
    for (const { i, j, body } of results) {
      expect(body.id).toBe(j + 1);
      expect(body.result.content[0]!.text).toBe(`session ${i} call ${j + 1}`);
    }
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(20);
  });

  it("serves legacy HTTP+SSE clients at /sse", async () => {
    const client = await sdkClient(`${base}/${deployment.proxy_id}/sse`, key, { legacy: true });
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "legacy" } }))).toBe("legacy");
    await client.close();
  });
});
