import { describe, expect, it } from "vitest";
import type { TestApp } from "~support/app.js";
import { MCP_ACCEPT, raw, rawSession } from "~support/gateway.js";
import { useGatewayApp, usageOf } from "./gateway-test-setup.js";

// Total Usage through the gateway, over real HTTP (gateway-test-setup.ts): one per request forwarded.

let t: TestApp;
let base: string;
let key: string;
let url: string;
useGatewayApp((f) => ({ t, base, key, url } = f));

const usage = (qn: string) => usageOf(t, qn);

describe("Total Usage (requests)", () => {
  it("grows by exactly the number of requests forwarded, and not for refused ones", async () => {
    await new Promise((r) => setTimeout(r, 200)); // earlier tests' counts are written
    const before = await usage("owner/fixture");
    const sessions = await Promise.all(Array.from({ length: 5 }, () => rawSession(url, key))); // 5 initialize
    await Promise.all(
      sessions.flatMap((s) => Array.from({ length: 8 }, (_, j) => s.call(j, "tools/call", { name: "echo", arguments: { message: "x" } }))),
    ); // 40 calls
    await raw(url, { headers: { accept: MCP_ACCEPT }, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } }); // 401: not counted
    await raw(url, { headers: sessions[0]!.headers, body: { jsonrpc: "2.0", method: "notifications/roots/list_changed" } }); // a notification: not a request
    await new Promise((r) => setTimeout(r, 300));
    expect(await usage("owner/fixture")).toBe(before + 45);
    const page = await (await t.app.request(`${base}/server/owner/fixture`)).text();
    expect(page).toContain(String(before + 45));
  });
});
