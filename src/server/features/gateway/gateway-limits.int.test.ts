import { describe, expect, it } from "vitest";
import type { Client, TestApp } from "~support/app.js";
import { MCP_ACCEPT, newApiKey, raw, rawSession, sseRequest } from "~support/gateway.js";
import type { DeploymentView } from "~/shared/deployments.js";
import { useGatewayApp } from "./gateway-test-setup.js";

// The gateway's limits over real HTTP (gateway-test-setup.ts): one client cannot hurt the others,
// and a server that crashes costs its callers a clear error, not the gateway.

let t: TestApp;
let owner: Client & { id: string };
let key: string;
let deployment: DeploymentView;
let url: string;
useGatewayApp((f) => ({ t, owner, key, deployment, url } = f));

describe("limits that keep one client from hurting the others", () => {
  const call = (s: Awaited<ReturnType<typeof rawSession>>, id: number, name: string, args: unknown) =>
    s.call(id, "tools/call", { name, arguments: args });

  it("a call the server never answers in time gets a JSON-RPC error (GATEWAY_REQUEST_TIMEOUT_MS)", async () => {
    const s = await rawSession(url, key);
    const r = await call(s, 1, "sleep", { ms: 3000 });
    expect(r.json()).toMatchObject({ id: 1, error: { message: "The MCP server did not answer within 1 s" } });
  });

  it("a second request with an id already in flight is refused; DELETE answers the calls still running", async () => {
    const s = await rawSession(url, key);
    const first = call(s, 4, "sleep", { ms: 800 });
    await new Promise((r) => setTimeout(r, 100));
    expect((await call(s, 4, "echo", { message: "again" })).json()).toMatchObject({
      id: 4,
      error: { message: "A request with this id is already in flight in this session" },
    });
    expect((await raw(url, { method: "DELETE", headers: s.headers })).status).toBe(200);
    expect((await first).json()).toMatchObject({ id: 4, error: { message: "The session ended before the server answered" } });
  });

  it("stray output from the server (numbers, null, arrays, bad messages) is logged, and everyone carries on", async () => {
    const s = await rawSession(url, key);
    const lines = ["0", "null", "[1,2]", '"text"', '{"jsonrpc":"2.0","method":5}', '{"jsonrpc":"2.0","id":"sb999999","result":{}}'];
    expect((await call(s, 1, "print_lines", { lines })).json()).toMatchObject({ result: { content: [{ text: "printed 6 lines" }] } });
    expect((await call(s, 2, "echo", { message: "still here" })).json()).toMatchObject({ result: { content: [{ text: "still here" }] } });
    expect(t.runtime.runner.logs(deployment.id)).toEqual(expect.arrayContaining(["0", "null", "[1,2]"]));
  });

  it("a client's capabilities of the wrong type are ignored, not trusted", async () => {
    const r = await raw(url, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: 1, clientInfo: { name: "odd", version: "1" } },
      },
    });
    expect(r.status).toBe(200);
    const odd = await raw(url, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "9999-01-01", capabilities: {}, clientInfo: { name: "future", version: "1" } },
      },
    });
    expect(odd.json()).toMatchObject({ result: { protocolVersion: "2025-11-25" } }); // an unknown revision is offered the latest
  });

  it("at GATEWAY_MAX_SESSIONS idle sessions make room; when every session is busy a new client gets 429", async () => {
    const busy = await Promise.all(Array.from({ length: 25 }, () => rawSession(url, key)));
    const streams = busy.map((s) => sseRequest(url, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } }));
    await Promise.all(streams.map((x) => x.response));
    const refused = await raw(url, {
      headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "late", version: "1" } },
      },
    });
    expect(refused.status).toBe(429);
    streams[0]!.close();
    await new Promise((r) => setTimeout(r, 100));
    await expect(rawSession(url, key)).resolves.toBeDefined();
    for (const x of streams) x.close();
  });

  it("revoking a key ends the sessions opened with it, open streams included", async () => {
    const temp = await newApiKey(owner, "leaked");
    const s = await rawSession(url, temp);
    const stream = sseRequest(url, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } });
    expect((await stream.response).statusCode).toBe(200);
    expect((await owner.del("/api/auth/apikeys/leaked")).status).toBe(200);
    await expect(stream.next(3000)).resolves.toBeNull(); // the stream ends
  });
});

describe("a server that crashes", () => {
  it("gives the caller a clear JSON-RPC error, and new sessions work once it is back", async () => {
    const s = await rawSession(url, key);
    const r = await s.call(9, "tools/call", { name: "crash", arguments: {} });
    const body = r.json<{ id: number; error: { message: string } }>();
    expect(body.id).toBe(9);
    expect(body.error.message).toMatch(/The MCP server stopped while handling this request/);
    // The session died with the process; the gateway lives on.
    expect((await s.call(10, "tools/list")).status).toBe(404);
    let again: Awaited<ReturnType<typeof rawSession>> | undefined;
    for (let i = 0; i < 300 && !again; i++) {
      again = await rawSession(url, key).catch(async (e: Error) => {
        expect(e.message).toContain("503"); // restarting: a clear 'try again' until it runs
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      });
    }
    expect((await again!.call(1, "tools/call", { name: "echo", arguments: { message: "back" } })).json()).toMatchObject({
      result: { content: [{ text: "back" }] },
    });
  });
});
