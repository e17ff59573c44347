import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "~support/app.js";
import { startRunningFixture, type RunningFixture } from "~support/deployments-app.js";
import { raw, rawSession, sdkClient, sseRequest, textOf } from "~support/gateway.js";
import { OVERSIZED_ANSWER } from "../runtime/process/stdout-lines.js";
import { TOO_DEEP } from "./protocol.js";

// Huge answers from a hosted server (the playground shows results in a browser; a 10 MB one must
// neither hang the page nor the platform): a 10 MB tool result arrives whole and soon, one beyond
// what the platform passes on becomes a clear error for that call at once, and the server and
// everyone else carry on.

let f: RunningFixture;
let url: string;
let key: string;
let owner: Client;
let deploymentId: string;

beforeAll(async () => {
  // How fast huge output is read and passed on, not the per-deployment budget that throttles it
  // (tests/integration/alone/tenant-exhaustion.test.ts): the budget is out of the way here.
  f = await startRunningFixture({ GATEWAY_REQUEST_TIMEOUT_MS: "120000", DEPLOY_OUTPUT_BYTES_PER_SECOND: String(1024 * 1024 * 1024) });
  ({ key, owner } = f);
  url = f.deployment.url;
  deploymentId = f.deployment.id;
}, 120_000);
afterAll(() => f?.close());

describe("huge results", () => {
  it("passes a 10 MB tool result on whole, in seconds, while other calls go on", async () => {
    const client = await sdkClient(url, key);
    const other = await sdkClient(url, key);
    const started = performance.now();
    const [big, small] = await Promise.all([
      client.callTool({ name: "big_output", arguments: { megabytes: 10 } }),
      other.callTool({ name: "echo", arguments: { message: "meanwhile" } }),
    ]);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(textOf(big).length).toBe(10 * 1024 * 1024);
    expect(textOf(small)).toBe("meanwhile");
    await client.close();
    await other.close();
  }, 60_000);

  it("answers a result beyond 16 MB with a clear error at once instead of leaving the call hanging; the server carries on", async () => {
    const client = await sdkClient(url, key);
    const started = performance.now();
    await expect(client.callTool({ name: "big_output", arguments: { megabytes: 20 } })).rejects.toThrow(OVERSIZED_ANSWER);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "still here" } }))).toBe("still here");
    await client.close();
  }, 60_000);

  it("answers a result nested too deeply to serialize again with a clear error at once; the server carries on", async () => {
    const client = await sdkClient(url, key);
    const started = performance.now();
    await expect(client.callTool({ name: "deep_output", arguments: {} })).rejects.toThrow(TOO_DEEP);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "still here" } }))).toBe("still here");
    await client.close();
  }, 60_000);

  it("a cancelled call's stream, resumed, answers 204: nothing left to replay, and SDK clients do not open a second GET stream (409)", async () => {
    const s = await rawSession(url, key, "2025-11-25");
    const call = sseRequest(url, {
      headers: s.headers,
      body: { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "sleep", arguments: { ms: 30_000, note: "working" } } },
    });
    expect((await call.next())!.data).toBe(""); // priming
    const note = (await call.next())!;
    expect(JSON.parse(note.data)).toMatchObject({ method: "notifications/message", params: { data: "working" } });
    expect(
      (await raw(url, { headers: s.headers, body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } } }))
        .status,
    ).toBe(202);
    expect(await call.next()).toBeNull(); // ended, with no answer
    const resumed = await raw(url, { method: "GET", headers: { ...s.headers, accept: "text/event-stream", "last-event-id": note.id! } });
    expect(resumed.status).toBe(204);

    // The official client cancelling a call while its GET stream is open: no error follows.
    const client = await sdkClient(url, key);
    const errors: unknown[] = [];
    client.onerror = (e) => errors.push(e);
    const abort = new AbortController();
    const pending = client.callTool({ name: "sleep", arguments: { ms: 30_000, note: "working" } }, undefined, { signal: abort.signal });
    await new Promise((r) => setTimeout(r, 500));
    abort.abort();
    await expect(pending).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 3000)); // the SDK would reconnect within this
    expect(errors).toEqual([]);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "after cancel" } }))).toBe("after cancel");
    await client.close();
  }, 60_000);

  it("a line too long to pass on whose id is not valid JSON (01) is dropped, and the platform carries on", async () => {
    const client = await sdkClient(url, key);
    const printed = await client.callTool({
      name: "print_raw",
      arguments: { text: '{"jsonrpc":"2.0","result":{"x":"' + "x".repeat(1000), times: 17_000, suffix: '"},"id":01}' },
    });
    expect(textOf(printed)).toBe("printed");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "still here" } }))).toBe("still here");
    await client.close();
  }, 60_000);

  it("64 MB of stderr without a newline is read in linear time: other calls are answered meanwhile", async () => {
    const flooder = await sdkClient(url, key);
    const other = await sdkClient(url, key);
    const flood = flooder.callTool({
      name: "print_raw",
      arguments: { text: "e".repeat(1024), times: 64 * 1024, to: "stderr", newline: false },
    });
    const started = performance.now();
    for (let i = 0; i < 5; i++)
      expect(textOf(await other.callTool({ name: "echo", arguments: { message: `meanwhile ${i}` } }))).toBe(`meanwhile ${i}`);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(textOf(await flood)).toBe("printed");
    expect(performance.now() - started).toBeLessThan(20_000);
    await flooder.close();
    await other.close();
  }, 60_000);

  it("a line of 15 million control characters is logged by its start, without holding the platform for seconds", async () => {
    const client = await sdkClient(url, key);
    const started = performance.now();
    expect(textOf(await client.callTool({ name: "print_raw", arguments: { text: "\u0001", times: 15_000_000 } }))).toBe("printed");
    expect(performance.now() - started).toBeLessThan(2500);
    const logs = ((await (await owner.get(`/api/deployments/${deploymentId}/logs`)).json()) as { lines: string[] }).lines;
    expect(logs).toContain("\\x01".repeat(500));
    await client.close();
  }, 60_000);

  it("an answer nested 7 million deep is refused before parsing (seconds of work) with a clear error for its call", async () => {
    const client = await sdkClient(url, key);
    const started = performance.now();
    // The fixture prints a valid answer to a made-up id: its own call is answered normally right after.
    const r = await client.callTool({
      name: "print_raw",
      arguments: {
        prefix: '{"jsonrpc":"2.0","id":"not-pending","result":',
        text: "[",
        times: 7_000_000,
        text2: "]",
        times2: 7_000_000,
        suffix: "}",
      },
    });
    expect(textOf(r)).toBe("printed");
    expect(performance.now() - started).toBeLessThan(5000);
    const logs = ((await (await owner.get(`/api/deployments/${deploymentId}/logs`)).json()) as { lines: string[] }).lines;
    expect(logs).toContain("[switchboard] dropped an output line nested deeper than 2000 levels");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "still here" } }))).toBe("still here");
    await client.close();
  }, 60_000);
});
