import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInUser } from "~support/app.js";
import { startRunningFixture, type RunningFixture } from "~support/deployments-app.js";
import { MCP_ACCEPT, raw, sdkClient, textOf } from "~support/gateway.js";
import type { DeploymentView } from "~/shared/deployments.js";

// Per-deployment tool selection: the owner hides tools; every client (Streamable HTTP, the legacy
// SSE transport, the playground's cookie) sees them neither listed nor callable, open sessions are
// told the list changed, and nothing reaches the server for a hidden tool.

let f: RunningFixture;
let tools: string;

beforeAll(async () => {
  f = await startRunningFixture({ USAGE_FLUSH_MS: "50" });
  tools = `/api/deployments/${f.deployment.id}/tools`;
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const names = (r: { tools: { name: string }[] }) => r.tools.map((t) => t.name);

describe("choosing the tools a deployment exposes", () => {
  it("hidden tools are neither listed nor callable by any client; open sessions are told; showing them again brings them back", async () => {
    const open = await sdkClient(f.deployment.url, f.key);
    // The owner may change the selection any time: clients are told the list can change.
    expect(open.getServerCapabilities()?.tools).toMatchObject({ listChanged: true });
    const all = names(await open.listTools());
    expect(all).toEqual(expect.arrayContaining(["echo", "add", "get_env"]));
    let told = 0;
    open.setNotificationHandler(ToolListChangedNotificationSchema, () => void told++);
    await new Promise((r) => setTimeout(r, 300)); // its GET stream is open

    const saved = await f.owner.put(tools, { hidden: ["echo", "get_env", "echo"] });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect(await saved.json()).toEqual({ hidden_tools: ["echo", "get_env"] });
    const [mine] = ((await (await f.owner.get("/api/deployments/server/owner/fixture")).json()) as { deployments: DeploymentView[] })
      .deployments;
    expect(mine!.hidden_tools).toEqual(["echo", "get_env"]);

    // The session opened before the change hears of it and lists without them.
    for (const deadline = Date.now() + 5000; told === 0 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    expect(told).toBe(1);
    expect(names(await open.listTools())).toEqual(all.filter((n) => n !== "echo" && n !== "get_env"));
    await expect(open.callTool({ name: "echo", arguments: { message: "hi" } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Unknown tool: echo"),
    });
    expect(textOf(await open.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");

    // A new session, and the legacy SSE transport, alike.
    const fresh = await sdkClient(f.deployment.url, f.key);
    expect(names(await fresh.listTools())).not.toContain("echo");
    await expect(fresh.callTool({ name: "get_env", arguments: { name: "PATH" } })).rejects.toMatchObject({ code: -32602 });
    const legacy = await sdkClient(f.deployment.sse_url, f.key, { legacy: true });
    expect(names(await legacy.listTools())).not.toContain("echo");
    await expect(legacy.callTool({ name: "echo", arguments: { message: "hi" } })).rejects.toMatchObject({ code: -32602 });

    // The playground (the owner's sign-in cookie from the site's own page) alike.
    const cookie = f.owner.jar.header();
    const h = { cookie, origin: f.base, accept: MCP_ACCEPT, "content-type": "application/json", "sec-fetch-site": "same-origin" };
    const init = await raw(f.deployment.url, {
      headers: h,
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "playground", version: "1" } },
      },
    });
    expect(init.status).toBe(200);
    const ph = { ...h, "mcp-session-id": init.headers["mcp-session-id"] as string, "mcp-protocol-version": "2025-06-18" };
    const listed = await raw(f.deployment.url, { headers: ph, body: { jsonrpc: "2.0", id: 2, method: "tools/list" } });
    expect(names(listed.json<{ result: { tools: { name: string }[] } }>().result)).not.toContain("echo");
    const called = await raw(f.deployment.url, {
      headers: ph,
      body: { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { message: "x" } } },
    });
    expect(called.json()).toMatchObject({ error: { code: -32602, message: "Unknown tool: echo" } });

    // Showing them again: listed and callable at once.
    expect((await f.owner.put(tools, { hidden: [] })).status).toBe(200);
    expect(names(await fresh.listTools())).toEqual(all);
    expect(textOf(await fresh.callTool({ name: "echo", arguments: { message: "back" } }))).toBe("back");
    for (const c of [open, fresh, legacy]) await c.close();
  }, 60_000);

  it("only the owner chooses, and only a list of tool names is taken", async () => {
    const eve = await signedInUser(f.t, "eve@example.com");
    expect((await eve.put(tools, { hidden: ["echo"] })).status).toBe(404);
    for (const body of [
      { hidden: "echo" },
      { hidden: [""] },
      { hidden: ["x".repeat(201)] },
      { hidden: Array.from({ length: 501 }, (_, i) => `t${i}`) },
      {},
    ]) {
      const r = await f.owner.put(tools, body);
      expect([JSON.stringify(body).slice(0, 40), r.status]).toEqual([JSON.stringify(body).slice(0, 40), 400]);
    }
    const anonymous = await fetch(`${f.base}${tools}`, {
      method: "PUT",
      headers: { "content-type": "application/json", origin: f.base },
      body: JSON.stringify({ hidden: [] }),
    });
    expect(anonymous.status).toBe(401);
    expect((await f.owner.put("/api/deployments/nope/tools", { hidden: [] })).status).toBe(404);
  });
});
